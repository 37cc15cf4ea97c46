# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Installing xdp-steer, included by the Makefile: the files the build makes
# for it (the man pages, from README.md and loader/README.md; the systemd unit, with this
# install's paths), and `make install` and `make uninstall`, which both read
# one list. PREFIX (default /usr/local; /usr gives Debian's paths) and
# DESTDIR (a staging root) as usual; each directory below can be set alone.

PYTHON      ?= python3
SBINDIR     ?= $(PREFIX)/sbin
BPFDIR      ?= $(PREFIX)/lib/bpf
UNITDIR     ?= $(PREFIX)/lib/systemd/system
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
DOCDIR      ?= $(PREFIX)/share/doc/xdp-steer
# udev reads rules from /usr/lib/udev/rules.d and /etc/udev/rules.d, not
# from under every prefix: a /usr/local install puts its rule in /etc.
UDEVRULESDIR ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/udev/rules.d,/etc/udev/rules.d)
# Policies live in /etc whatever the prefix, as Debian's /usr/local
# packages keep their configuration in /etc too.
SYSCONFDIR  ?= /etc

DIST        := loader/dist
MAN_PAGES   := $(DIST)/xdp-steer.8 $(DIST)/xdp-steer.yaml.5
UNIT        := $(DIST)/xdp-steer@.service
BALANCE_UNIT := $(DIST)/xdp-steer-balance@.service
REPAIR_UNIT := $(DIST)/xdp-steer-repair@.service
UDEV_RULE   := $(DIST)/60-xdp-steer-cpu-online.rules
EXAMPLES    := $(sort $(wildcard configs/*.yaml))
# The pages' date: when their sources, the READMEs, last changed.
MAN_DATE    ?= $(if $(wildcard .git),$(shell git log -1 --format=%cs -- README.md loader/README.md 2>/dev/null))

# Every file `make install` puts in place, as MODE:SOURCE:DESTINATION
# (DESTDIR goes before the destination); `make uninstall` removes the same
# destinations, then INSTALL_OWN_DIRS if they are empty (the other
# directories are shared with other packages and stay).
INSTALL_LIST = \
	0755:$(LOADER):$(SBINDIR)/xdp-steer \
	0644:$(BPF_OBJ):$(BPFDIR)/xdp_steer.bpf.o \
	0644:$(UNIT):$(UNITDIR)/xdp-steer@.service \
	0644:$(BALANCE_UNIT):$(UNITDIR)/xdp-steer-balance@.service \
	0644:$(REPAIR_UNIT):$(UNITDIR)/xdp-steer-repair@.service \
	0644:$(UDEV_RULE):$(UDEVRULESDIR)/60-xdp-steer-cpu-online.rules \
	0644:$(DIST)/xdp-steer.8:$(MANDIR)/man8/xdp-steer.8 \
	0644:$(DIST)/xdp-steer.yaml.5:$(MANDIR)/man5/xdp-steer.yaml.5 \
	0644:$(DIST)/xdp-steer.bash:$(BASHCOMPDIR)/xdp-steer \
	0644:README.md:$(DOCDIR)/README.md \
	0644:loader/README.md:$(DOCDIR)/loader/README.md \
	0644:bpf/README.md:$(DOCDIR)/bpf/README.md \
	0644:LICENSES/GPL-2.0:$(DOCDIR)/LICENSES/GPL-2.0 \
	0644:LICENSES/BSD-2-Clause:$(DOCDIR)/LICENSES/BSD-2-Clause \
	$(foreach f,$(EXAMPLES),0644:$(f):$(DOCDIR)/examples/$(notdir $(f)))
INSTALL_OWN_DIRS = $(DOCDIR)/examples $(DOCDIR)/LICENSES $(DOCDIR)/loader \
		   $(DOCDIR)/bpf $(DOCDIR)
INSTALL_SRCS = $(foreach row,$(INSTALL_LIST),$(word 2,$(subst :, ,$(row))))

# A ':' or a space in a directory would split the rows above: each of
# these variables must be one word.
INSTALL_DIR_VARS := SBINDIR BPFDIR UNITDIR MANDIR BASHCOMPDIR DOCDIR SYSCONFDIR \
		    UDEVRULESDIR
check-install-dirs = $(foreach v,$(INSTALL_DIR_VARS),$(if $(or $(findstring \
	:,$($(v))),$(filter-out 1,$(words $($(v))))),$(error install directories \
	must each be set, without ':' or spaces: $(v)='$($(v))')))

# The textfile collector's service and timer, the Grafana dashboard: their
# rows.
include $(DIST)/monitoring.mk

ALL += $(MAN_PAGES) $(UNIT) $(BALANCE_UNIT) $(REPAIR_UNIT)
all: $(MAN_PAGES) $(UNIT) $(BALANCE_UNIT) $(REPAIR_UNIT)

$(MAN_PAGES): $(DIST)/%: README.md loader/README.md $(DIST)/readme2man.py \
		$(VERSION_STAMP)
	$(call msg,MAN,$@)
	$(Q)$(PYTHON) $(DIST)/readme2man.py README.md loader/README.md $* \
		--version '$(VERSION)' \
		--date '$(MAN_DATE)' > $@

# The unit names the installed loader and the policy directory: made again
# when they change, so `make` then `make install PREFIX=/usr` installs a
# unit with /usr's paths.
PATHS_STAMP := $(DIST)/paths.stamp
$(PATHS_STAMP): FORCE
	$(Q)echo '$(SBINDIR) $(SYSCONFDIR)' | cmp -s - $@ || \
		echo '$(SBINDIR) $(SYSCONFDIR)' > $@
$(UNIT) $(BALANCE_UNIT) $(REPAIR_UNIT): %: %.in $(PATHS_STAMP)
	$(call check-install-dirs)
	$(call msg,GEN,$@)
	$(Q)sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		$< > $@

install: $(INSTALL_SRCS)
	$(call check-install-dirs)
	$(Q)set -e; for row in $(INSTALL_LIST); do \
		mode=$${row%%:*}; row=$${row#*:}; \
		src=$${row%%:*}; dst="$(DESTDIR)$${row#*:}"; \
		$(if $(Q),printf '  %-8s %s\n' INSTALL "$$dst";) \
		install -D -m "$$mode" "$$src" "$$dst"; \
	done

# What `make install` installs, built and nothing else: the package's
# build step (loader/dist/debian/rules).
dist-build: $(INSTALL_SRCS)

# Before the files go, what they set up at run time goes (the units
# stopped, every interface detached, its pins and textfile removed:
# teardown.sh, shared with the package's prerm); after, the links of the
# enabled instances. Not for a staging root (DESTDIR), where nothing runs.
uninstall:
	$(call check-install-dirs)
	$(Q)[ -n "$(DESTDIR)" ] || sh $(DIST)/teardown.sh stop \
		'$(SBINDIR)/xdp-steer' '$(TEXTFILEDIR)'
	$(Q)set -e; for row in $(INSTALL_LIST); do \
		dst="$(DESTDIR)$${row#*:*:}"; \
		$(if $(Q),[ ! -e "$$dst" ] || printf '  %-8s %s\n' REMOVE "$$dst";) \
		rm -f "$$dst"; \
	done; \
	for dir in $(INSTALL_OWN_DIRS); do \
		[ ! -d "$(DESTDIR)$$dir" ] || \
			rmdir --ignore-fail-on-non-empty "$(DESTDIR)$$dir"; \
	done
	$(Q)[ -n "$(DESTDIR)" ] || sh $(DIST)/teardown.sh disable

clean: clean-dist
clean-dist:
	$(Q)rm -f $(MAN_PAGES) $(UNIT) $(BALANCE_UNIT) $(REPAIR_UNIT) $(PATHS_STAMP)
.PHONY: install uninstall dist-build clean-dist

# make deb: the Debian package.
include $(DIST)/deb.mk

# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The Debian package, included by dist.mk. `make deb` builds
# xdp-steer_<DEB_VERSION>_<arch>.deb with the Debian tools
# (dpkg-buildpackage, debhelper) and prints where it put it, in DEB_OUT
# (default loader/dist). The tree has no debian/ directory of its own:
# the source is copied to a temporary directory, loader/dist/debian is
# placed there as debian/, the package built there, and the directory
# removed, so the tree stays as it was. It first installs what is
# missing, as `make test` does (tests/lib/deps.sh --dist: the build
# group, dpkg-dev, debhelper, lintian).
#
# DEB_VERSION: the package's version, made from VERSION (what --version
# prints): a tag's 1.2 stays 1.2, 1.2-5-gabc1234 after it is
# 1.2+git5.gabc1234, and an untagged 0.1.0-gabc1234 is
# 0.1.0+git<commits>.gabc1234, so a later commit's package upgrades an
# earlier one; -dirty becomes .dirty. A version other than the changelog's
# first gets an entry of its own in the package's changelog, dated as its
# commit (a build of uncommitted changes: now).

DEB_SRC := $(DIST)/debian
DEB_OUT ?= $(DIST)
DEB_VERSION ?= $(shell echo '$(VERSION)' | sed -E \
	-e 's/^([^-]+)-([0-9]+)-g/\1+git\2.g/' \
	-e 's/^([^-+]+)-g/\1+git$(if $(wildcard .git),$(shell git rev-list --count HEAD 2>/dev/null),0).g/' \
	-e 's/-dirty$$/.dirty/' -e 's/-/./g')
DEB_FILE = $(DEB_OUT)/xdp-steer_$(DEB_VERSION)_$(shell dpkg --print-architecture).deb

# The files of the tree, for the copy: git's (tracked and new, not
# ignored) in a checkout, else all but packages.
DEB_TREE_FILES := if [ -e .git ]; then git ls-files -z --cached --others \
	--exclude-standard; else find . -name .git -prune -o -type f \
	! -name '*.deb' -print0; fi

deb:
	$(Q)tests/lib/deps.sh --dist
	$(Q)set -e; \
	stage=$$(mktemp -d "$${TMPDIR:-/tmp}/xdp-steer-deb.XXXXXX"); \
	trap 'rm -rf "$$stage"' EXIT; \
	src=$$stage/xdp-steer-$(DEB_VERSION); \
	mkdir "$$src"; \
	($(DEB_TREE_FILES)) | tar --null -T - --ignore-failed-read -cf - | \
		tar -xf - -C "$$src"; \
	cp -R $(DEB_SRC) "$$src/debian"; \
	top=$$(dpkg-parsechangelog -l $(DEB_SRC)/changelog -S Version); \
	if [ "$$top" != '$(DEB_VERSION)' ]; then \
		case '$(VERSION)' in \
		*-dirty) when=$$(date +%s) ;; \
		*) when=$$(git log -1 --format=%ct 2>/dev/null || date +%s) ;; \
		esac; \
		{ echo 'xdp-steer ($(DEB_VERSION)) UNRELEASED; urgency=medium'; \
		  echo; \
		  echo '  * Snapshot of xdp-steer $(VERSION), built by make deb.'; \
		  echo; \
		  echo " -- $$(sed -n 's/^Maintainer: //p' $(DEB_SRC)/control)  $$(date -R -d @$$when)"; \
		  echo; \
		  cat $(DEB_SRC)/changelog; } >"$$src/debian/changelog"; \
	fi; \
	$(if $(Q),printf '  %-8s %s\n' DEB "$$src";) \
	if ! (cd "$$src" && XDP_STEER_VERSION='$(VERSION)' MAN_DATE='$(MAN_DATE)' \
	      dpkg-buildpackage -b --no-sign -Jauto) \
	      $(if $(Q),>"$$stage/build.log" 2>&1); then \
		$(if $(Q),tail -40 "$$stage/build.log";) \
		echo "make deb: dpkg-buildpackage failed$(if $(Q), (the log's end above; make deb V=1 shows it all))" >&2; \
		exit 1; \
	fi; \
	mkdir -p '$(DEB_OUT)'; \
	cp "$$stage/$(notdir $(DEB_FILE))" '$(DEB_FILE)'; \
	echo "make deb: $(DEB_FILE)"

clean: clean-deb
clean-deb:
	$(Q)rm -f $(DIST)/xdp-steer_*.deb
.PHONY: deb clean-deb

# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Monitoring, included by dist.mk: the textfile collector's unit and timer
# (the counters of an interface written for node_exporter), the Grafana
# dashboard over those metrics and the Prometheus alerting rules on them,
# in the install list dist.mk reads.
# TEXTFILEDIR: the directory node_exporter's textfile collector reads
# (Debian's prometheus-node-exporter: /var/lib/prometheus/node-exporter),
# whatever the prefix, as the policies' /etc; DATADIR: the dashboard's
# and the rules'.

TEXTFILEDIR ?= /var/lib/prometheus/node-exporter
DATADIR     ?= $(PREFIX)/share/xdp-steer

TEXTFILE_UNIT  := $(DIST)/xdp-steer-textfile@.service
TEXTFILE_TIMER := $(DIST)/xdp-steer-textfile@.timer
DASHBOARD      := $(DIST)/grafana-xdp-steer.json
ALERT_RULES    := $(DIST)/xdp-steer.rules.yml

INSTALL_LIST += \
	0644:$(TEXTFILE_UNIT):$(UNITDIR)/xdp-steer-textfile@.service \
	0644:$(TEXTFILE_TIMER):$(UNITDIR)/xdp-steer-textfile@.timer \
	0644:$(DASHBOARD):$(DATADIR)/grafana/xdp-steer.json \
	0644:$(ALERT_RULES):$(DATADIR)/prometheus/xdp-steer.rules.yml
INSTALL_OWN_DIRS += $(DATADIR)/grafana $(DATADIR)/prometheus $(DATADIR)
INSTALL_DIR_VARS += TEXTFILEDIR DATADIR

ALL += $(TEXTFILE_UNIT)
all: $(TEXTFILE_UNIT)

TEXTFILE_STAMP := $(DIST)/textfile.stamp
$(TEXTFILE_STAMP): FORCE
	$(Q)echo '$(SBINDIR) $(TEXTFILEDIR)' | cmp -s - $@ || \
		echo '$(SBINDIR) $(TEXTFILEDIR)' > $@
$(TEXTFILE_UNIT): %: %.in $(TEXTFILE_STAMP)
	$(call check-install-dirs)
	$(call msg,GEN,$@)
	$(Q)sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@TEXTFILEDIR@|$(TEXTFILEDIR)|g' \
		$< > $@

clean: clean-monitoring
clean-monitoring:
	$(Q)rm -f $(TEXTFILE_UNIT) $(TEXTFILE_STAMP)
.PHONY: clean-monitoring

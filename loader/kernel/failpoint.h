/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * failpoint.h - named steps where a test can make xdp-steer fail or die,
 * to prove what a failure or a kill at that step leaves behind:
 *
 *   XDP_STEER_FAILPOINT=NAME       the step fails with -EIO
 *   XDP_STEER_FAILPOINT=NAME:exit  the process exits (status 137) there,
 *                                  as if killed
 *   XDP_STEER_FAILPOINT=NAME:stop  the process stops itself there
 *                                  (SIGSTOP), and goes on when sent
 *                                  SIGCONT: a test acts in between
 *
 * Steps (kernel/slots.c, kernel/slots_retire.c, lib/attach.c): write,
 * add-cpumap, warm-up, flip, wait, retire, attach-apply; an upgrade's
 * handing over of the tracepoint programs (kernel/trace.c):
 * handover-begun (the incoming set pinned), take-over (its maps renamed
 * over the outgoing set's, not its links);
 * an upgrade under libxdp's dispatcher (kernel/prog.c):
 * dispatcher-joined (this version's xdp_steer beside the running one, not
 * yet alone). Unset in normal use: one getenv() per step.
 */
#ifndef XDP_STEER_FAILPOINT_H
#define XDP_STEER_FAILPOINT_H

/* 0, or -EIO when the test asked this step to fail. */
int failpoint(const char *name);

#endif /* XDP_STEER_FAILPOINT_H */

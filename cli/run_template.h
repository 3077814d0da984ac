/* samsim run DIR: a directory written by `samsim template`, its phases run
 * in order on tiles through their memories (run/tiled.h), a later phase
 * taking an earlier one's result by name, and the summary an accelerator
 * is judged by: cycles and seconds at the clock, DRAM traffic per tensor
 * (partial outputs PO apart from the result's final write) and the
 * algorithmic minimum. */
#ifndef SAMSIM_RUN_TEMPLATE_H
#define SAMSIM_RUN_TEMPLATE_H

/* Runs template directory argv[0] with the options after it; returns the
 * exit status. */
int run_template(int argc, char **argv);

#endif

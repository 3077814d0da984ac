/* The version samsim reports (`samsim --version`); the one place it is
 * written. */
#ifndef SAMSIM_VERSION_H
#define SAMSIM_VERSION_H

#define SAMSIM_VERSION "0.1.0"

#endif

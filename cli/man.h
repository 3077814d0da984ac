/* The man page written from the commands' declarations. */
#ifndef SAMSIM_MAN_H
#define SAMSIM_MAN_H

#include <stddef.h>
#include <stdio.h>

#include "options.h"

void man_print(FILE *f, const cli_command *const *commands, size_t n);

#endif

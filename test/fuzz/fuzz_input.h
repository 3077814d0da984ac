/* What every fuzz harness shares: the readers take paths, so each input is
 * written as files of a fresh temporary directory, removed afterwards. */
#ifndef SAMSIM_FUZZ_INPUT_H
#define SAMSIM_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "../../formats/tensor_file.h"

/* The libFuzzer entry point each harness defines (replay.c calls it too). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fuzz_dir {
    char path[64];
} fuzz_dir;

/* Creates the directory; 0 on success. */
int fuzz_dir_open(fuzz_dir *d);

/* Writes bytes as file name of the directory into path (of size n). */
int fuzz_dir_write(const fuzz_dir *d, const char *name, const uint8_t *data, size_t size,
                   char *path, size_t n);

/* Removes the directory and every file in it. */
void fuzz_dir_close(fuzz_dir *d);

/* Writes the whole input as file name of a fresh directory and calls
 * read_file on its path. */
void fuzz_with_file(const char *name, const uint8_t *data, size_t size,
                    void (*read_file)(const char *path));

/* Calls fn(ctx) with standard output and error going to /dev/null, for
 * harnesses of commands that print (the replayer's own report goes to
 * standard output around it). */
void fuzz_silenced(void (*fn)(void *ctx), void *ctx);

/* Lowers the dense limit (fibertree.h) so that storing a few bytes densely
 * stays far below the fuzzer's memory limit while the limit is still
 * exercised. */
void fuzz_limits(void);

/* Stores t in several level formats and reads it back, aborting where a
 * store that succeeded does not validate or loses entries. */
void fuzz_store_tensor(const tensor *t);

/* Reads the tensor file f and, when it reads, stores it as
 * fuzz_store_tensor does. */
void fuzz_read_tensor(tensor_file *f);

#endif

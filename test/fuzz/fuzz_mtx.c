/* Matrix Market reader: the input is the file. */
#include "../../formats/tensor_file.h"
#include "fuzz_input.h"

static void read_mtx(const char *path)
{
    tensor_file f = {.path = path};
    fuzz_read_tensor(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_limits();
    fuzz_with_file("in.mtx", data, size, read_mtx);
    return 0;
}

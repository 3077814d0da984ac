/* FROSTT .tns reader: the input is the file. */
#include "../../formats/tensor_file.h"
#include "fuzz_input.h"

static void read_tns(const char *path)
{
    tensor_file f = {.path = path};
    fuzz_read_tensor(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_limits();
    fuzz_with_file("in.tns", data, size, read_tns);
    return 0;
}

/* libFuzzer harness: the model-file loader on arbitrary bytes (seeded with real model files).
 * Contract: a documented status; a failure has a message naming the file and is kept as the
 * builder's first error; the builder keeps what it held (one body added before the load
 * still compiles alone once the error is cleared); a file that loads
 * compiles or fails with a documented status. */
#include <unistd.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/mbs_fuzz_load_%d.urdf", (int)getpid());
    FILE *out = fopen(path, "wb");
    if (!out) return 0;
    fwrite(data, 1, size, out);
    fclose(out);
    mbs_builder *b = mbs_builder_create();
    mbs_body_def bd = mbs_default_body_def();
    mbs_add_body(b, &bd);
    const int st = mbs_builder_load(b, path);
    fz_check_status(st, mbs_builder_error(b), "builder_load");
    mbs_model *m = NULL;
    if (st != MBS_OK) {
        fz_require(strstr(mbs_builder_error(b), path) != NULL, "builder_load", "message does not name the file");
        fz_require(mbs_builder_first_error(b, NULL) == st, "builder_load", "failure not kept");
        mbs_builder_clear_error(b); /* the failure is sticky: compile would quote it */
        fz_require(mbs_compile(b, &m) == MBS_OK && mbs_model_nbody(m) == 2, "builder_load", "builder changed by a failed load");
    } else {
        fz_check_status(mbs_compile(b, &m), mbs_builder_error(b), "compile");
    }
    mbs_model_destroy(m);
    mbs_builder_destroy(b);
    remove(path);
    return 0;
}

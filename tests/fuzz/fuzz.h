/*
 * tests/fuzz/fuzz.h: what the libFuzzer targets share (docs/fuzzing.md).
 * Mutated traces mostly fail their CRC-32s, which would keep the fuzzer
 * at the checksum checks; fuzz_fix_checksums() recomputes every checksum
 * it can find, so mutations reach the code behind them.
 */
#ifndef ST_TESTS_FUZZ_FUZZ_H
#define ST_TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Recompute the file header's CRC and those of every chunk header whose
 * lengths fit in the 'len' bytes at 'buf' (a rank file in the layout of
 * its version, writer/format.h).
 */
void fuzz_fix_checksums(uint8_t *buf, size_t len);

/* Read every record of the rank file at 'buf', as the tools do. */
void fuzz_read_rank(const uint8_t *buf, size_t len);

/* A fresh directory for this process's files, made once. */
const char *fuzz_dir(void);

/* Write 'len' bytes of 'buf' to 'path'; aborts on failure. */
void fuzz_write(const char *path, const void *buf, size_t len);

#endif

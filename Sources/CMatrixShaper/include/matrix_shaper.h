// The per-pixel loop of the matrix/TRC colour conversion (MatrixShaperTables in WebImageCodecs),
// in C: plain portable code, no intrinsics, nothing but <stddef.h> and <stdint.h>.
#ifndef WEBIMAGE_MATRIX_SHAPER_H
#define WEBIMAGE_MATRIX_SHAPER_H

#include <stddef.h>
#include <stdint.h>

/// Converts `count` RGBA8 pixels in place; alpha is never read or written.
///
/// `channels` holds 3 × 256 words: for red (0…255), green (256…511) and blue (512…767) input
/// values, what that channel adds to the output's three linear levels, as three 16-bit fields
/// (bits 0–15 red, 16–31 green, 32–47 blue; signed contributions added as whole words, a bias
/// in the blue rows keeps each field's sum within 0…65535). `encode` maps a field's sum to the
/// output byte and has an entry for every sum the tables can make.
void webimage_matrix_shaper_convert(uint8_t *pixels, size_t count, const uint64_t *channels,
                                    const uint8_t *encode);

#endif

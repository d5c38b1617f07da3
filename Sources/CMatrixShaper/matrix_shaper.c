#include "matrix_shaper.h"

void webimage_matrix_shaper_convert(uint8_t *restrict pixels, size_t count, const uint64_t *restrict channels,
                                    const uint8_t *restrict encode) {
    const uint64_t *restrict red = channels, *restrict green = channels + 256, *restrict blue = channels + 512;
    uint8_t *restrict p = pixels;
    size_t i = 0;
    // Two pixels a step: two independent chains of table reads for the processor to overlap.
    for (; i + 2 <= count; i += 2, p += 8) {
        uint64_t s = red[p[0]] + green[p[1]] + blue[p[2]];
        uint64_t t = red[p[4]] + green[p[5]] + blue[p[6]];
        p[0] = encode[(uint16_t)s];
        p[1] = encode[(uint16_t)(s >> 16)];
        p[2] = encode[(uint16_t)(s >> 32)];
        p[4] = encode[(uint16_t)t];
        p[5] = encode[(uint16_t)(t >> 16)];
        p[6] = encode[(uint16_t)(t >> 32)];
    }
    if (i < count) {
        uint64_t s = red[p[0]] + green[p[1]] + blue[p[2]];
        p[0] = encode[(uint16_t)s];
        p[1] = encode[(uint16_t)(s >> 16)];
        p[2] = encode[(uint16_t)(s >> 32)];
    }
}

// The inner loops of Resampler (WebImageCodecs): one source row resampled horizontally into
// float pixels, and destination rows made from those float rows. Each entry point picks, at run
// time, an AVX2+FMA version on x86-64 processors that have it and portable C everywhere else
// (always, when its `portable` argument is non-zero); both give the same bytes up to float
// rounding.
#ifndef WEBIMAGE_RESAMPLE_H
#define WEBIMAGE_RESAMPLE_H

#include <stddef.h>
#include <stdint.h>

/// Fraction bits of the fixed-point weights of the opaque horizontal pass.
#define WEBIMAGE_RESAMPLE_FIXED_BITS 14

/// Non-zero when ``webimage_resample_horizontal`` has a fixed-point pass for opaque rows on this
/// processor (AVX2).
int webimage_resample_has_fixed_horizontal(void);

/// One RGBA8 source row resampled horizontally into `count` float RGBA pixels at `out`.
///
/// Columns `span_start ..< span_end` of `row` are first made floats in `scratch` (indexed by
/// column, 4 floats each), premultiplied by alpha when `alpha` is non-zero. Destination pixel `x`
/// is then the sum over `t < taps` of `scratch[first[x] + t] * w[x * taps + t]`, where `weights4`
/// holds each weight four times over (`w[i]` at `4 * i ..< 4 * i + 4`). `taps` must be even:
/// destination pixels with fewer taps are padded with zero weights, and the scratch columns those
/// read beyond the span must hold finite floats (`scratch` holds at least `span_end + taps` columns).
///
/// When `alpha` is zero, `portable` is zero and `fixed_pairs4` is not NULL, a processor with the
/// fixed-point pass uses it instead: the bytes of `row` are weighted directly by `fixed_pairs4`,
/// the same weights with ``WEBIMAGE_RESAMPLE_FIXED_BITS`` fraction bits, in pairs of taps (the
/// even tap's 16-bit weight in the low half of a 32-bit value), each pair four times over. The
/// padding taps of the last pixels read a copy of the row's end in `scratch`.
void webimage_resample_horizontal(const uint8_t *row, float *scratch, ptrdiff_t span_start, ptrdiff_t span_end,
                                  int alpha, const ptrdiff_t *first, ptrdiff_t taps, const float *weights4,
                                  const int32_t *fixed_pairs4, ptrdiff_t count, float *out, int portable);

/// `sum` (or, when `accumulate` is zero, a fresh sum) plus `rows[t] * weights[t]` for `t < taps`,
/// over `floats` floats.
void webimage_resample_vertical_sum(const float *const *rows, const float *weights, ptrdiff_t taps,
                                    ptrdiff_t floats, int accumulate, float *sum, int portable);

/// `pixels` float RGBA pixels made RGBA8 at `out`: un-premultiplied by alpha when `alpha` is
/// non-zero (alpha near zero gives a transparent black), each channel rounded half up and
/// clamped to 0…255.
void webimage_resample_store(const float *sum, ptrdiff_t pixels, int alpha, uint8_t *out, int portable);

/// ``webimage_resample_vertical_sum`` then ``webimage_resample_store`` without a sum row in
/// memory: `pixels` RGBA8 pixels at `out` from `taps` float rows.
void webimage_resample_vertical(const float *const *rows, const float *weights, ptrdiff_t taps,
                                ptrdiff_t pixels, int alpha, uint8_t *out, int portable);

#endif

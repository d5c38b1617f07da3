#include "resample.h"

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>
#define WEBIMAGE_RESAMPLE_AVX2 1
#endif

// MARK: Portable C

static void convert_row(const uint8_t *row, float *scratch, ptrdiff_t start, ptrdiff_t end, int alpha) {
    if (alpha) {
        for (ptrdiff_t c = start; c < end; c++) {
            const uint8_t *p = row + 4 * c;
            float a = (float)p[3], f = a * (1.0f / 255.0f);
            float *s = scratch + 4 * c;
            s[0] = (float)p[0] * f;
            s[1] = (float)p[1] * f;
            s[2] = (float)p[2] * f;
            s[3] = a;
        }
    } else {
        for (ptrdiff_t c = start; c < end; c++) {
            const uint8_t *p = row + 4 * c;
            float *s = scratch + 4 * c;
            s[0] = (float)p[0];
            s[1] = (float)p[1];
            s[2] = (float)p[2];
            s[3] = (float)p[3];
        }
    }
}

static void horizontal_portable(const float *scratch, const ptrdiff_t *first, ptrdiff_t taps,
                                const float *weights4, ptrdiff_t count, float *out) {
    for (ptrdiff_t x = 0; x < count; x++) {
        const float *p = scratch + 4 * first[x], *w = weights4 + 4 * taps * x;
        float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (ptrdiff_t t = 0; t < taps; t++) {
            float k = w[4 * t];
            s0 += p[4 * t] * k;
            s1 += p[4 * t + 1] * k;
            s2 += p[4 * t + 2] * k;
            s3 += p[4 * t + 3] * k;
        }
        float *o = out + 4 * x;
        o[0] = s0;
        o[1] = s1;
        o[2] = s2;
        o[3] = s3;
    }
}

static void vertical_sum_portable(const float *const *rows, const float *weights, ptrdiff_t taps,
                                  ptrdiff_t floats, int accumulate, float *sum) {
    if (!accumulate) {
        for (ptrdiff_t i = 0; i < floats; i++) sum[i] = 0;
    }
    for (ptrdiff_t t = 0; t < taps; t++) {
        const float *r = rows[t];
        float k = weights[t];
        for (ptrdiff_t i = 0; i < floats; i++) sum[i] += r[i] * k;
    }
}

static inline uint8_t byte_of(float v) {
    float c = v + 0.5f;
    if (!(c >= 0)) c = 0;
    if (c > 255) c = 255;
    return (uint8_t)c;
}

static void store_portable(const float *sum, ptrdiff_t pixels, int alpha, uint8_t *out) {
    for (ptrdiff_t x = 0; x < pixels; x++) {
        const float *v = sum + 4 * x;
        float scale = 1;
        if (alpha) scale = v[3] > 0.001f ? 255.0f / v[3] : 0;
        uint8_t *o = out + 4 * x;
        o[0] = byte_of(v[0] * scale);
        o[1] = byte_of(v[1] * scale);
        o[2] = byte_of(v[2] * scale);
        o[3] = byte_of(v[3]);
    }
}

/// Destination pixels a portable fused vertical pass makes per block (its sum lives on the stack).
#define PORTABLE_BLOCK 64

static void vertical_portable(const float *const *rows, const float *weights, ptrdiff_t taps, ptrdiff_t pixels,
                              int alpha, uint8_t *out) {
    float sum[4 * PORTABLE_BLOCK];
    const float *shifted[64];
    for (ptrdiff_t x = 0; x < pixels; x += PORTABLE_BLOCK) {
        ptrdiff_t n = pixels - x < PORTABLE_BLOCK ? pixels - x : PORTABLE_BLOCK;
        for (ptrdiff_t t0 = 0; t0 < taps; t0 += 64) {
            ptrdiff_t chunk = taps - t0 < 64 ? taps - t0 : 64;
            for (ptrdiff_t t = 0; t < chunk; t++) shifted[t] = rows[t0 + t] + 4 * x;
            vertical_sum_portable(shifted, weights + t0, chunk, 4 * n, t0 > 0, sum);
        }
        store_portable(sum, n, alpha, out + 4 * x);
    }
}

// MARK: AVX2 and FMA

#ifdef WEBIMAGE_RESAMPLE_AVX2
#define AVX2 __attribute__((target("avx2,fma")))

AVX2 static void convert_row_avx2(const uint8_t *row, float *scratch, ptrdiff_t start, ptrdiff_t end, int alpha) {
    ptrdiff_t c = start;
    const __m256 unit = _mm256_set1_ps(1.0f / 255.0f);
    for (; c + 2 <= end; c += 2) {
        __m256 v = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(row + 4 * c))));
        if (alpha) {
            __m256 a = _mm256_permute_ps(v, 0xFF);
            v = _mm256_blend_ps(_mm256_mul_ps(v, _mm256_mul_ps(a, unit)), v, 0x88);
        }
        _mm256_storeu_ps(scratch + 4 * c, v);
    }
    if (c < end) convert_row(row, scratch, c, end, alpha);
}

AVX2 static void horizontal_avx2(const float *scratch, const ptrdiff_t *first, ptrdiff_t taps,
                                 const float *weights4, ptrdiff_t count, float *out) {
    // Two source pixels per 256-bit vector, each times its own weight; `taps` is even.
    ptrdiff_t quads = taps & ~(ptrdiff_t)3;
    for (ptrdiff_t x = 0; x < count; x++) {
        const float *p = scratch + 4 * first[x], *w = weights4 + 4 * taps * x;
        __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
        for (ptrdiff_t t = 0; t < quads; t += 4) {
            a0 = _mm256_fmadd_ps(_mm256_loadu_ps(p + 4 * t), _mm256_loadu_ps(w + 4 * t), a0);
            a1 = _mm256_fmadd_ps(_mm256_loadu_ps(p + 4 * t + 8), _mm256_loadu_ps(w + 4 * t + 8), a1);
        }
        if (quads < taps) a0 = _mm256_fmadd_ps(_mm256_loadu_ps(p + 4 * quads), _mm256_loadu_ps(w + 4 * quads), a0);
        __m256 a = _mm256_add_ps(a0, a1);
        _mm_storeu_ps(out + 4 * x, _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1)));
    }
}

/// Byte shuffles making two RGBA8 pixels (bytes 0-7 of each 128-bit lane: pixels 0 and 1 in the
/// low lane, 2 and 3 in the high lane) into 16-bit channel pairs r0 r1 g0 g1 b0 b1 a0 a1.
#define PAIR_LOW 0, -1, 4, -1, 1, -1, 5, -1, 2, -1, 6, -1, 3, -1, 7, -1
#define PAIR_HIGH 8, -1, 12, -1, 9, -1, 13, -1, 10, -1, 14, -1, 11, -1, 15, -1

AVX2 static void horizontal_fixed_avx2(const uint8_t *row, ptrdiff_t span_end, uint8_t *tail,
                                       const ptrdiff_t *first, ptrdiff_t taps, const int32_t *pairs4,
                                       ptrdiff_t count, float *out) {
    // Columns from `tail_start` to the span's end, then `taps` zero pixels, so the padding taps of
    // the last destination pixels read inside this copy instead of past the row.
    ptrdiff_t tail_start = span_end > taps ? span_end - taps : 0;
    for (ptrdiff_t i = 0; i < 4 * (span_end - tail_start); i++) tail[i] = row[4 * tail_start + i];
    for (ptrdiff_t i = 4 * (span_end - tail_start); i < 4 * (span_end - tail_start + taps); i++) tail[i] = 0;
    const __m256i pair256 = _mm256_setr_epi8(PAIR_LOW, PAIR_HIGH);
    const __m128i pair128 = _mm_setr_epi8(PAIR_LOW);
    const __m128 unit = _mm_set1_ps(1.0f / (float)(1 << WEBIMAGE_RESAMPLE_FIXED_BITS));
    ptrdiff_t pairs = taps / 2;
    for (ptrdiff_t x = 0; x < count; x++) {
        const uint8_t *p = first[x] + taps <= span_end ? row + 4 * first[x] : tail + 4 * (first[x] - tail_start);
        const int32_t *w = pairs4 + 4 * pairs * x;
        __m256i a0 = _mm256_setzero_si256(), a1 = _mm256_setzero_si256();
        ptrdiff_t t = 0;
        for (; t + 8 <= taps; t += 8) {
            __m256i p0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(p + 4 * t)));
            __m256i p1 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(p + 4 * t + 16)));
            a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_shuffle_epi8(p0, pair256),
                                                        _mm256_loadu_si256((const __m256i *)(w + 2 * t))));
            a1 = _mm256_add_epi32(a1, _mm256_madd_epi16(_mm256_shuffle_epi8(p1, pair256),
                                                        _mm256_loadu_si256((const __m256i *)(w + 2 * t + 8))));
        }
        if (t + 4 <= taps) {
            __m256i p0 = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(p + 4 * t)));
            a0 = _mm256_add_epi32(a0, _mm256_madd_epi16(_mm256_shuffle_epi8(p0, pair256),
                                                        _mm256_loadu_si256((const __m256i *)(w + 2 * t))));
            t += 4;
        }
        __m256i a = _mm256_add_epi32(a0, a1);
        __m128i sum = _mm_add_epi32(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
        if (t < taps) {
            __m128i p0 = _mm_loadl_epi64((const __m128i *)(p + 4 * t));
            sum = _mm_add_epi32(sum, _mm_madd_epi16(_mm_shuffle_epi8(p0, pair128),
                                                    _mm_loadu_si128((const __m128i *)(w + 2 * t))));
        }
        _mm_storeu_ps(out + 4 * x, _mm_mul_ps(_mm_cvtepi32_ps(sum), unit));
    }
}

AVX2 static void vertical_sum_avx2(const float *const *rows, const float *weights, ptrdiff_t taps,
                                   ptrdiff_t floats, int accumulate, float *sum) {
    ptrdiff_t i = 0;
    for (; i + 8 <= floats; i += 8) {
        __m256 a = accumulate ? _mm256_loadu_ps(sum + i) : _mm256_setzero_ps();
        for (ptrdiff_t t = 0; t < taps; t++) a = _mm256_fmadd_ps(_mm256_loadu_ps(rows[t] + i), _mm256_set1_ps(weights[t]), a);
        _mm256_storeu_ps(sum + i, a);
    }
    for (; i < floats; i++) {
        float a = accumulate ? sum[i] : 0;
        for (ptrdiff_t t = 0; t < taps; t++) a += rows[t][i] * weights[t];
        sum[i] = a;
    }
}

/// Two float RGBA pixels made 8 bytes, as store_portable does.
AVX2 static inline void store_two_avx2(__m256 v, int alpha, uint8_t *out) {
    if (alpha) {
        __m256 a = _mm256_permute_ps(v, 0xFF);
        __m256 scale = _mm256_and_ps(_mm256_div_ps(_mm256_set1_ps(255.0f), a),
                                     _mm256_cmp_ps(a, _mm256_set1_ps(0.001f), _CMP_GT_OQ));
        v = _mm256_blend_ps(_mm256_mul_ps(v, scale), v, 0x88);
    }
    __m256 c = _mm256_add_ps(v, _mm256_set1_ps(0.5f));
    c = _mm256_min_ps(_mm256_max_ps(c, _mm256_setzero_ps()), _mm256_set1_ps(255.0f));
    __m256i whole = _mm256_cvttps_epi32(c);
    __m128i words = _mm_packus_epi32(_mm256_castsi256_si128(whole), _mm256_extracti128_si256(whole, 1));
    _mm_storel_epi64((__m128i *)out, _mm_packus_epi16(words, words));
}

AVX2 static void store_avx2(const float *sum, ptrdiff_t pixels, int alpha, uint8_t *out) {
    ptrdiff_t x = 0;
    for (; x + 2 <= pixels; x += 2) store_two_avx2(_mm256_loadu_ps(sum + 4 * x), alpha, out + 4 * x);
    if (x < pixels) store_portable(sum + 4 * x, pixels - x, alpha, out + 4 * x);
}

AVX2 static void vertical_avx2(const float *const *rows, const float *weights, ptrdiff_t taps, ptrdiff_t pixels,
                               int alpha, uint8_t *out) {
    ptrdiff_t x = 0;
    // Four pixels a step, in two independent chains.
    for (; x + 4 <= pixels; x += 4) {
        ptrdiff_t i = 4 * x;
        __m256 a0 = _mm256_setzero_ps(), a1 = _mm256_setzero_ps();
        for (ptrdiff_t t = 0; t < taps; t++) {
            __m256 k = _mm256_set1_ps(weights[t]);
            a0 = _mm256_fmadd_ps(_mm256_loadu_ps(rows[t] + i), k, a0);
            a1 = _mm256_fmadd_ps(_mm256_loadu_ps(rows[t] + i + 8), k, a1);
        }
        store_two_avx2(a0, alpha, out + i);
        store_two_avx2(a1, alpha, out + i + 8);
    }
    for (; x < pixels; x++) {
        float v[4] = {0, 0, 0, 0};
        for (ptrdiff_t t = 0; t < taps; t++) {
            for (int c = 0; c < 4; c++) v[c] += rows[t][4 * x + c] * weights[t];
        }
        store_portable(v, 1, alpha, out + 4 * x);
    }
}

static int has_avx2(void) {
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#else
static int has_avx2(void) { return 0; }
#endif

// MARK: Entry points

int webimage_resample_has_fixed_horizontal(void) { return has_avx2(); }

void webimage_resample_horizontal(const uint8_t *row, float *scratch, ptrdiff_t span_start, ptrdiff_t span_end,
                                  int alpha, const ptrdiff_t *first, ptrdiff_t taps, const float *weights4,
                                  const int32_t *fixed_pairs4, ptrdiff_t count, float *out, int portable) {
#ifdef WEBIMAGE_RESAMPLE_AVX2
    if (!portable && !alpha && fixed_pairs4 && has_avx2()) {
        horizontal_fixed_avx2(row, span_end, (uint8_t *)scratch, first, taps, fixed_pairs4, count, out);
        return;
    }
    if (!portable && has_avx2()) {
        convert_row_avx2(row, scratch, span_start, span_end, alpha);
        horizontal_avx2(scratch, first, taps, weights4, count, out);
        return;
    }
#endif
    convert_row(row, scratch, span_start, span_end, alpha);
    horizontal_portable(scratch, first, taps, weights4, count, out);
}

void webimage_resample_vertical_sum(const float *const *rows, const float *weights, ptrdiff_t taps,
                                    ptrdiff_t floats, int accumulate, float *sum, int portable) {
#ifdef WEBIMAGE_RESAMPLE_AVX2
    if (!portable && has_avx2()) {
        vertical_sum_avx2(rows, weights, taps, floats, accumulate, sum);
        return;
    }
#endif
    vertical_sum_portable(rows, weights, taps, floats, accumulate, sum);
}

void webimage_resample_store(const float *sum, ptrdiff_t pixels, int alpha, uint8_t *out, int portable) {
#ifdef WEBIMAGE_RESAMPLE_AVX2
    if (!portable && has_avx2()) {
        store_avx2(sum, pixels, alpha, out);
        return;
    }
#endif
    store_portable(sum, pixels, alpha, out);
}

void webimage_resample_vertical(const float *const *rows, const float *weights, ptrdiff_t taps, ptrdiff_t pixels,
                                int alpha, uint8_t *out, int portable) {
#ifdef WEBIMAGE_RESAMPLE_AVX2
    if (!portable && has_avx2()) {
        vertical_avx2(rows, weights, taps, pixels, alpha, out);
        return;
    }
#endif
    vertical_portable(rows, weights, taps, pixels, alpha, out);
}

// The C limit for decoding JPEG XL: the libjxl calls WebImage's JXLCoder makes, in a plain loop.
// Every .jxl file in DIR is read into memory first, then decoded REPS times over, each decode
// with a new decoder (no thread runner), orientation applied, alpha unpremultiplied, the colour
// encoding read (sRGB: nothing more; else the output asked for in sRGB, as the Swift decoder does
// for XYB files), and the first frame written as RGBA8 into a new buffer, which is then freed.
//
//   jxl_limit DIR [REPS]        prints one JSON line shaped like `webimage decode-bench`'s
//   jxl_limit anim FILE [RUNS]  plays an animation once: every frame decoded in order (coalesced)
//                               into a new buffer, as a player holds it; prints {"frames":N,"ms":T},
//                               the best of RUNS (beside `webimage animate FILE --json`)
//
// Build: cc -O2 -o jxl_limit Benchmarks/codecs/jxl_limit.c -ljxl
#include <jxl/decode.h>
#include <jxl/encode.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static unsigned char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) { perror(path); exit(1); }
    fseek(f, 0, SEEK_END);
    *size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *bytes = malloc(*size);
    if (fread(bytes, 1, *size, f) != *size) { perror(path); exit(1); }
    fclose(f);
    return bytes;
}

static int is_srgb(const JxlColorEncoding *e) {
    int gray = e->color_space == JXL_COLOR_SPACE_GRAY;
    return (gray || e->color_space == JXL_COLOR_SPACE_RGB) && e->white_point == JXL_WHITE_POINT_D65
        && e->transfer_function == JXL_TRANSFER_FUNCTION_SRGB && (gray || e->primaries == JXL_PRIMARIES_SRGB);
}

// Decodes the first frame of `bytes`; returns its pixel count, 0 on failure.
static size_t decode(const unsigned char *bytes, size_t size) {
    JxlDecoder *dec = JxlDecoderCreate(NULL);
    JxlDecoderSubscribeEvents(dec, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING | JXL_DEC_FULL_IMAGE);
    JxlDecoderSetUnpremultiplyAlpha(dec, JXL_TRUE);
    JxlDecoderSetInput(dec, bytes, size);
    JxlDecoderCloseInput(dec);
    JxlBasicInfo info;
    JxlPixelFormat format = {4, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    unsigned char *pixels = NULL;
    size_t result = 0;
    for (;;) {
        JxlDecoderStatus status = JxlDecoderProcessInput(dec);
        if (status == JXL_DEC_BASIC_INFO) {
            JxlDecoderGetBasicInfo(dec, &info);
        } else if (status == JXL_DEC_COLOR_ENCODING) {
            JxlColorEncoding original;
            if (JxlDecoderGetColorAsEncodedProfile(dec, NULL, JXL_COLOR_PROFILE_TARGET_ORIGINAL, &original) == JXL_DEC_SUCCESS
                && is_srgb(&original)) continue;
            if (!info.uses_original_profile) {
                JxlColorEncoding srgb;
                JxlColorEncodingSetToSRGB(&srgb, info.num_color_channels == 1);
                JxlDecoderSetPreferredColorProfile(dec, &srgb);
            }
        } else if (status == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
            size_t needed = 0;
            JxlDecoderImageOutBufferSize(dec, &format, &needed);
            pixels = malloc(needed);
            JxlDecoderSetImageOutBuffer(dec, &format, pixels, needed);
        } else if (status == JXL_DEC_FULL_IMAGE) {
            result = (size_t)info.xsize * info.ysize;
            break;
        } else {
            break;
        }
    }
    free(pixels);
    JxlDecoderDestroy(dec);
    return result;
}

// Decodes every frame of `bytes` in order; returns the frame count, 0 on failure.
static int play(const unsigned char *bytes, size_t size) {
    JxlDecoder *dec = JxlDecoderCreate(NULL);
    JxlDecoderSubscribeEvents(dec, JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING | JXL_DEC_FULL_IMAGE);
    JxlDecoderSetUnpremultiplyAlpha(dec, JXL_TRUE);
    JxlDecoderSetInput(dec, bytes, size);
    JxlDecoderCloseInput(dec);
    JxlPixelFormat format = {4, JXL_TYPE_UINT8, JXL_NATIVE_ENDIAN, 0};
    unsigned char *pixels = NULL;
    int frames = 0;
    for (;;) {
        JxlDecoderStatus status = JxlDecoderProcessInput(dec);
        if (status == JXL_DEC_NEED_IMAGE_OUT_BUFFER) {
            size_t needed = 0;
            JxlDecoderImageOutBufferSize(dec, &format, &needed);
            free(pixels);
            pixels = malloc(needed);
            JxlDecoderSetImageOutBuffer(dec, &format, pixels, needed);
        } else if (status == JXL_DEC_FULL_IMAGE) {
            frames++;
        } else if (status == JXL_DEC_SUCCESS) {
            break;
        } else if (status != JXL_DEC_BASIC_INFO && status != JXL_DEC_COLOR_ENCODING) {
            frames = 0;
            break;
        }
    }
    free(pixels);
    JxlDecoderDestroy(dec);
    return frames;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: jxl_limit DIR [REPS] | jxl_limit anim FILE [RUNS]\n"); return 2; }
    if (strcmp(argv[1], "anim") == 0 && argc > 2) {
        size_t size;
        unsigned char *bytes = read_file(argv[2], &size);
        int runs = argc > 3 ? atoi(argv[3]) : 3, frames = 0;
        double best = 1e30;
        for (int r = 0; r < runs; r++) {
            double start = now_s();
            frames = play(bytes, size);
            double ms = (now_s() - start) * 1000;
            if (!frames) { fprintf(stderr, "cannot decode %s\n", argv[2]); return 1; }
            if (ms < best) best = ms;
        }
        printf("{\"frames\":%d,\"ms\":%.2f}\n", frames, best);
        return 0;
    }
    const char *dir = argv[1];
    DIR *d = opendir(dir);
    if (!d) { perror(dir); return 1; }
    struct dirent *entry;
    unsigned char *files[4096];
    size_t sizes[4096];
    int count = 0;
    size_t total = 0;
    while ((entry = readdir(d)) && count < 4096) {
        size_t n = strlen(entry->d_name);
        if (n < 5 || strcmp(entry->d_name + n - 4, ".jxl") != 0) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, entry->d_name);
        files[count] = read_file(path, &sizes[count]);
        total += sizes[count++];
    }
    closedir(d);
    if (count == 0) { fprintf(stderr, "no .jxl files in %s\n", dir); return 1; }
    int reps = argc > 2 ? atoi(argv[2]) : (int)(200000000 / (total + 1)) + 1;
    if (reps > 50 && argc <= 2) reps = 50;
    double megapixels = 0;
    for (int i = 0; i < count; i++) {  // untimed: sizes and a warm-up
        size_t pixels = decode(files[i], sizes[i]);
        if (!pixels) { fprintf(stderr, "cannot decode file %d\n", i); return 1; }
        megapixels += pixels / 1e6;
    }
    double start = now_s();
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < count; i++)
            if (!decode(files[i], sizes[i])) return 1;
    double seconds = now_s() - start;
    int images = count * reps;
    const char *set = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
    printf("{\"subject\":\"jxl-limit\",\"set\":\"%s\",\"images\":%d,\"seconds\":%.4f,\"images_per_s\":%.2f,"
           "\"megapixels_per_s\":%.2f,\"files\":%d,\"reps\":%d,\"ms_per_image\":%.4f}\n",
           set, images, seconds, images / seconds, megapixels * reps / seconds, count, reps, seconds * 1000 / images);
    return 0;
}

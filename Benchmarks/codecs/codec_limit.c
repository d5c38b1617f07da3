// The C limit for the TIFF, BMP and ICO decoders: the library calls the coders make, in a plain
// C loop, on files read into memory first, each image decoded into a fresh RGBA8 buffer.
//
//   tiff: TIFFClientOpen over the bytes (read/seek/size/map procedures, as the coder's), then
//         TIFFReadEncodedStrip (or TIFFReadEncodedTile) and a loop widening RGB or gray to
//         RGBA8 (16-bit samples rounded), the coder's path for 8/16-bit chunky files.
//   tiff-rgba: the same open, then libtiff's TIFFReadRGBAImageOriented (for comparison).
//   bmp, ico: gdk_pixbuf_loader_new_with_type, write, close, and the rows copied to RGBA8.
//
//   codec_limit MODE DIR [REPS]   prints {"subject":"c-MODE","images":N,"seconds":S,"ms_per_image":M}
//
// The loop's memory is kept by the allocator between images (no mmap per buffer, no trimming):
// without that, every image's buffers are fresh pages from the kernel, a page fault each 4 KiB,
// which made this loop slower than the library (whose decodes run on a thread arena that keeps
// its memory) and so no limit at all.
//
// Build: cc -O2 -o codec_limit codec_limit.c $(pkg-config --cflags --libs libtiff-4 gdk-pixbuf-2.0)
#include <dirent.h>
#include <gdk-pixbuf/gdk-pixbuf.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <tiffio.h>

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

struct file { unsigned char *bytes; size_t size; };

static struct file read_file(const char *path) {
    struct file f = {0};
    FILE *in = fopen(path, "rb");
    if (!in) { perror(path); exit(1); }
    fseek(in, 0, SEEK_END);
    f.size = (size_t)ftell(in);
    fseek(in, 0, SEEK_SET);
    f.bytes = malloc(f.size);
    if (fread(f.bytes, 1, f.size, in) != f.size) { perror(path); exit(1); }
    fclose(in);
    return f;
}

// --- libtiff from memory --------------------------------------------------------------------

struct stream { const unsigned char *bytes; size_t size, position; };

static tmsize_t s_read(thandle_t h, void *buf, tmsize_t n) {
    struct stream *s = h;
    size_t left = s->size - s->position, k = (size_t)n < left ? (size_t)n : left;
    memcpy(buf, s->bytes + s->position, k);
    s->position += k;
    return (tmsize_t)k;
}
static tmsize_t s_write(thandle_t h, void *buf, tmsize_t n) { (void)h; (void)buf; (void)n; return -1; }
static toff_t s_seek(thandle_t h, toff_t off, int whence) {
    struct stream *s = h;
    int64_t base = whence == SEEK_CUR ? (int64_t)s->position : whence == SEEK_END ? (int64_t)s->size : 0;
    int64_t to = base + (int64_t)off;
    if (to < 0) return (toff_t)-1;
    s->position = (size_t)to;
    return (toff_t)to;
}
static int s_close(thandle_t h) { (void)h; return 0; }
static toff_t s_size(thandle_t h) { return ((struct stream *)h)->size; }
static int s_map(thandle_t h, void **base, toff_t *size) {
    struct stream *s = h;
    *base = (void *)s->bytes;
    *size = s->size;
    return 1;
}
static void s_unmap(thandle_t h, void *base, toff_t size) { (void)h; (void)base; (void)size; }
static int quiet(TIFF *t, void *u, const char *m, const char *f, va_list a) {
    (void)t; (void)u; (void)m; (void)f; (void)a;
    return 1;
}

static TIFF *open_memory(struct stream *s, TIFFOpenOptions *opts) {
    return TIFFClientOpenExt("memory", "rO", s, s_read, s_write, s_seek, s_close, s_size, s_map, s_unmap, opts);
}

// Samples (8 or 16 bits, `spp` per pixel: gray, gray + alpha, RGB, RGBA) to RGBA8, 16-bit rounded;
// one tight loop per layout, as a hand-written C decoder would have.
static inline unsigned char r16(uint16_t v) { return (unsigned char)((v + 128u) / 257u); }

static void widen(const unsigned char *src, unsigned char *dst, size_t pixels, int spp, int bits) {
    if (bits == 8 && spp == 3) {
        for (size_t i = 0; i < pixels; i++, src += 3, dst += 4) { dst[0] = src[0]; dst[1] = src[1]; dst[2] = src[2]; dst[3] = 255; }
    } else if (bits == 8 && spp == 4) {
        memcpy(dst, src, pixels * 4);
    } else if (bits == 8 && spp == 1) {
        for (size_t i = 0; i < pixels; i++, dst += 4) { dst[0] = dst[1] = dst[2] = src[i]; dst[3] = 255; }
    } else if (bits == 16) {
        const uint16_t *s = (const uint16_t *)src;
        for (size_t i = 0; i < pixels; i++, s += spp, dst += 4) {
            if (spp >= 3) { dst[0] = r16(s[0]); dst[1] = r16(s[1]); dst[2] = r16(s[2]); dst[3] = spp == 4 ? r16(s[3]) : 255; }
            else { dst[0] = dst[1] = dst[2] = r16(s[0]); dst[3] = spp == 2 ? r16(s[1]) : 255; }
        }
    } else {
        for (size_t i = 0; i < pixels; i++, src += spp, dst += 4) { dst[0] = dst[1] = dst[2] = src[0]; dst[3] = src[1]; }
    }
}

static void decode_tiff(const struct file *f, int rgba_interface) {
    struct stream s = {f->bytes, f->size, 0};
    TIFFOpenOptions *opts = TIFFOpenOptionsAlloc();
    TIFFOpenOptionsSetErrorHandlerExtR(opts, quiet, NULL);
    TIFFOpenOptionsSetWarningHandlerExtR(opts, quiet, NULL);
    TIFF *tif = open_memory(&s, opts);
    if (!tif) { fprintf(stderr, "cannot open\n"); exit(1); }
    uint32_t w = 0, h = 0;
    uint16_t spp = 1, bits = 8, photometric = 0, compression = 1;
    TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w);
    TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bits);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PHOTOMETRIC, &photometric);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    unsigned char *out = malloc((size_t)w * h * 4);
    if (rgba_interface) {
        if (!TIFFReadRGBAImageOriented(tif, w, h, (uint32_t *)out, ORIENTATION_TOPLEFT, 0)) { fprintf(stderr, "rgba failed\n"); exit(1); }
    } else if (TIFFIsTiled(tif)) {
        uint32_t tw = 0, tl = 0;
        TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw);
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &tl);
        if (photometric == PHOTOMETRIC_YCBCR && compression == COMPRESSION_JPEG) TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
        size_t px = (size_t)spp * bits / 8;
        unsigned char *tile = malloc((size_t)TIFFTileSize(tif));
        unsigned char *band = malloc((size_t)tl * w * px);
        for (uint32_t y = 0; y < h; y += tl) {
            uint32_t rows = h - y < tl ? h - y : tl;
            for (uint32_t x = 0; x < w; x += tw) {
                uint32_t cols = w - x < tw ? w - x : tw;
                if (TIFFReadEncodedTile(tif, TIFFComputeTile(tif, x, y, 0, 0), tile, -1) < 0) { fprintf(stderr, "tile failed\n"); exit(1); }
                for (uint32_t r = 0; r < rows; r++) memcpy(band + ((size_t)r * w + x) * px, tile + (size_t)r * tw * px, cols * px);
            }
            widen(band, out + (size_t)y * w * 4, (size_t)rows * w, spp, bits);
        }
        free(band);
        free(tile);
    } else {
        if (photometric == PHOTOMETRIC_YCBCR && compression == COMPRESSION_JPEG) TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
        uint32_t rps = h;
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rps);
        if (rps > h) rps = h;
        tmsize_t line = TIFFScanlineSize(tif);
        unsigned char *strip = malloc((size_t)TIFFStripSize(tif));
        for (uint32_t y = 0, i = 0; y < h; y += rps, i++) {
            uint32_t rows = h - y < rps ? h - y : rps;
            if (TIFFReadEncodedStrip(tif, i, strip, -1) < 0) { fprintf(stderr, "strip failed\n"); exit(1); }
            for (uint32_t r = 0; r < rows; r++)
                widen(strip + (size_t)r * line, out + ((size_t)(y + r)) * w * 4, w, spp, bits);
        }
        free(strip);
    }
    free(out);
    TIFFClose(tif);
    TIFFOpenOptionsFree(opts);
}

// --- gdk-pixbuf ------------------------------------------------------------------------------

static void decode_pixbuf(const struct file *f, const char *type) {
    GError *error = NULL;
    GdkPixbufLoader *loader = gdk_pixbuf_loader_new_with_type(type, &error);
    if (!loader || !gdk_pixbuf_loader_write(loader, f->bytes, f->size, &error) || !gdk_pixbuf_loader_close(loader, &error)) {
        fprintf(stderr, "gdk-pixbuf: %s\n", error ? error->message : "?");
        exit(1);
    }
    GdkPixbuf *pixbuf = gdk_pixbuf_loader_get_pixbuf(loader);
    int w = gdk_pixbuf_get_width(pixbuf), h = gdk_pixbuf_get_height(pixbuf);
    int n = gdk_pixbuf_get_n_channels(pixbuf), stride = gdk_pixbuf_get_rowstride(pixbuf);
    const guint8 *pixels = gdk_pixbuf_read_pixels(pixbuf);
    unsigned char *out = malloc((size_t)w * h * 4);
    for (int y = 0; y < h; y++) {
        const guint8 *from = pixels + (size_t)y * stride;
        unsigned char *to = out + (size_t)y * w * 4;
        if (n == 4) memcpy(to, from, (size_t)w * 4);
        else for (int x = 0; x < w; x++) { to[x * 4] = from[x * 3]; to[x * 4 + 1] = from[x * 3 + 1]; to[x * 4 + 2] = from[x * 3 + 2]; to[x * 4 + 3] = 255; }
    }
    free(out);
    g_object_unref(loader);
}

static int has_extension(const char *name, const char *mode) {
    const char *dot = strrchr(name, '.');
    if (!dot) return 0;
    if (strncmp(mode, "tiff", 4) == 0) return strcmp(dot, ".tif") == 0 || strcmp(dot, ".tiff") == 0;
    if (strcmp(mode, "ico") == 0) return strcmp(dot, ".ico") == 0 || strcmp(dot, ".cur") == 0;
    return strcmp(dot, ".bmp") == 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: codec_limit tiff|tiff-rgba|bmp|ico DIR [REPS]\n"); return 2; }
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    const char *mode = argv[1], *dir = argv[2];
    int reps = argc > 3 ? atoi(argv[3]) : 20;
    DIR *d = opendir(dir);
    if (!d) { perror(dir); return 1; }
    char *names[4096];
    int count = 0;
    for (struct dirent *e; (e = readdir(d)) && count < 4096;)
        if (has_extension(e->d_name, mode)) names[count++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)count, sizeof *names, by_name);
    struct file *files = calloc((size_t)count, sizeof *files);
    for (int i = 0; i < count; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        files[i] = read_file(path);
    }
    int tiff = strncmp(mode, "tiff", 4) == 0, rgba = strcmp(mode, "tiff-rgba") == 0;
    // Untimed warm-up: code, loaders and allocator.
    for (int i = 0; i < count; i++) tiff ? decode_tiff(&files[i], rgba) : decode_pixbuf(&files[i], mode);
    double start = now_s();
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < count; i++) tiff ? decode_tiff(&files[i], rgba) : decode_pixbuf(&files[i], mode);
    double seconds = now_s() - start;
    int images = reps * count;
    printf("{\"subject\":\"c-%s\",\"images\":%d,\"seconds\":%.4f,\"ms_per_image\":%.4f}\n", mode, images, seconds,
           seconds * 1000 / images);
    return 0;
}

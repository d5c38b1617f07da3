// The C limit for playing an animation once: every frame decoded in order with giflib (records,
// LZW rows, palette, disposal on one canvas) or libwebp's animation decoder, each composed frame
// copied out as a player holds it. Also writes the benchmark's GIF.
//
//   anim_limit make-gif FRAMES WIDTH HEIGHT OUT.gif   a test animation (full frames, moving bands)
//   anim_limit gif FILE [RUNS]                         prints {"frames":N,"ms":T} (best of RUNS)
//   anim_limit webp FILE [RUNS]
#include <gif_lib.h>
#include <webp/demux.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
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

static int make_gif(int frames, int width, int height, const char *out) {
    int error = 0;
    GifFileType *gif = EGifOpenFileName(out, false, &error);
    if (!gif) { fprintf(stderr, "cannot write %s\n", out); return 1; }
    GifColorType colors[256];
    for (int i = 0; i < 256; i++) {
        colors[i].Red = (GifByteType)i; colors[i].Green = (GifByteType)(255 - i); colors[i].Blue = (GifByteType)(i * 7);
    }
    ColorMapObject *map = GifMakeMapObject(256, colors);
    EGifSetGifVersion(gif, true);
    EGifPutScreenDesc(gif, width, height, 8, 0, map);
    unsigned char loop[3] = {1, 0, 0};
    EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE);
    EGifPutExtensionBlock(gif, 11, "NETSCAPE2.0");
    EGifPutExtensionBlock(gif, 3, loop);
    EGifPutExtensionTrailer(gif);
    GifPixelType *row = malloc((size_t)width);
    for (int f = 0; f < frames; f++) {
        GraphicsControlBlock gcb = {DISPOSE_DO_NOT, false, 4, NO_TRANSPARENT_COLOR};
        GifByteType ext[4];
        size_t n = EGifGCBToExtension(&gcb, ext);
        EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, (int)n, ext);
        EGifPutImageDesc(gif, 0, 0, width, height, false, NULL);
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) row[x] = (GifPixelType)(((x + f * 3) / 8 + (y / 8) * 5 + (x * y + f) % 7) & 0xFF);
            EGifPutLine(gif, row, width);
        }
    }
    free(row);
    GifFreeMapObject(map);
    return EGifCloseFile(gif, &error) == GIF_OK ? 0 : 1;
}

struct cursor { const unsigned char *bytes; size_t size, offset; };

static int read_cursor(GifFileType *gif, GifByteType *out, int count) {
    struct cursor *c = gif->UserData;
    size_t n = c->size - c->offset < (size_t)count ? c->size - c->offset : (size_t)count;
    memcpy(out, c->bytes + c->offset, n);
    c->offset += n;
    return (int)n;
}

// Plays every frame once; returns the frame count.
static int play_gif(const unsigned char *bytes, size_t size) {
    struct cursor c = {bytes, size, 0};
    int error = 0;
    GifFileType *gif = DGifOpen(&c, read_cursor, &error);
    if (!gif) return -1;
    int width = gif->SWidth, height = gif->SHeight, frames = 0;
    uint32_t *canvas = calloc((size_t)width * height, 4);
    GifByteType *line = malloc((size_t)width);
    GraphicsControlBlock gcb = {DISPOSAL_UNSPECIFIED, false, 0, NO_TRANSPARENT_COLOR};
    int pending_clear = 0, px = 0, py = 0, pw = 0, ph = 0;
    GifRecordType type;
    while (DGifGetRecordType(gif, &type) == GIF_OK && type != TERMINATE_RECORD_TYPE) {
        if (type == EXTENSION_RECORD_TYPE) {
            int code; GifByteType *block;
            DGifGetExtension(gif, &code, &block);
            if (code == GRAPHICS_EXT_FUNC_CODE && block) DGifExtensionToGCB(block[0], block + 1, &gcb);
            while (block) DGifGetExtensionNext(gif, &block);
        } else if (type == IMAGE_DESC_RECORD_TYPE) {
            DGifGetImageDesc(gif);
            GifImageDesc d = gif->Image;
            if (pending_clear)
                for (int y = py; y < py + ph; y++) memset(canvas + (size_t)y * width + px, 0, (size_t)pw * 4);
            ColorMapObject *map = d.ColorMap ? d.ColorMap : gif->SColorMap;
            uint32_t palette[256] = {0};
            for (int i = 0; i < map->ColorCount && i < 256; i++)
                if (i != gcb.TransparentColor)
                    palette[i] = map->Colors[i].Red | map->Colors[i].Green << 8 | map->Colors[i].Blue << 16 | 0xFF000000u;
            for (int y = 0; y < d.Height; y++) {
                DGifGetLine(gif, line, d.Width);
                uint32_t *out = canvas + (size_t)(d.Top + y) * width + d.Left;
                for (int x = 0; x < d.Width; x++) { uint32_t p = palette[line[x]]; if (p) out[x] = p; }
            }
            pending_clear = gcb.DisposalMode == DISPOSE_BACKGROUND;
            px = d.Left; py = d.Top; pw = d.Width; ph = d.Height;
            uint32_t *frame = malloc((size_t)width * height * 4);  // the frame a player holds
            memcpy(frame, canvas, (size_t)width * height * 4);
            free(frame);
            frames++;
            gcb = (GraphicsControlBlock){DISPOSAL_UNSPECIFIED, false, 0, NO_TRANSPARENT_COLOR};
        }
    }
    free(line); free(canvas);
    DGifCloseFile(gif, &error);
    return frames;
}

static int play_webp(const unsigned char *bytes, size_t size) {
    WebPAnimDecoderOptions options;
    WebPAnimDecoderOptionsInit(&options);
    options.color_mode = MODE_RGBA;
    options.use_threads = 0;
    WebPData data = {bytes, size};
    WebPAnimDecoder *decoder = WebPAnimDecoderNew(&data, &options);
    if (!decoder) return -1;
    WebPAnimInfo info;
    WebPAnimDecoderGetInfo(decoder, &info);
    size_t frame_bytes = (size_t)info.canvas_width * info.canvas_height * 4;
    int frames = 0;
    while (WebPAnimDecoderHasMoreFrames(decoder)) {
        uint8_t *pixels; int timestamp;
        if (!WebPAnimDecoderGetNext(decoder, &pixels, &timestamp)) break;
        uint8_t *frame = malloc(frame_bytes);
        memcpy(frame, pixels, frame_bytes);
        free(frame);
        frames++;
    }
    WebPAnimDecoderDelete(decoder);
    return frames;
}

int main(int argc, char **argv) {
    if (argc >= 6 && !strcmp(argv[1], "make-gif")) return make_gif(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), argv[5]);
    if (argc < 3) { fprintf(stderr, "usage: anim_limit make-gif N W H OUT | gif FILE [RUNS] | webp FILE [RUNS]\n"); return 2; }
    size_t size;
    unsigned char *bytes = read_file(argv[2], &size);
    int runs = argc > 3 ? atoi(argv[3]) : 3, frames = 0;
    double best = 1e300;
    for (int r = 0; r < runs; r++) {
        double start = now_ms();
        frames = !strcmp(argv[1], "webp") ? play_webp(bytes, size) : play_gif(bytes, size);
        double ms = now_ms() - start;
        if (ms < best) best = ms;
    }
    if (frames < 0) { fprintf(stderr, "cannot decode %s\n", argv[2]); return 1; }
    printf("{\"frames\":%d,\"ms\":%.1f}\n", frames, best);
    free(bytes);
    return 0;
}

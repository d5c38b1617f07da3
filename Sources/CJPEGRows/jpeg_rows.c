#include "jpeg_rows.h"

#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include <jpeglib.h>

/// The most scans a progressive file may have, as TurboJPEG's TJFLAG_LIMITSCANS allows.
#define WEBIMAGE_JPEG_MAX_SCANS 500

struct rows_errors {
    struct jpeg_error_mgr manager;
    jmp_buf escape;
    int warned;
    char *message;
    size_t message_size;
    int stopped;
};

/// libjpeg's progress hook (called per scan consumed and per call for rows) with the caller's
/// stop check.
struct rows_progress {
    struct jpeg_progress_mgr manager;
    webimage_jpeg_should_stop should_stop;
};

static void keep_message(j_common_ptr info) {
    struct rows_errors *errors = (struct rows_errors *)info->err;
    if (errors->message_size == 0) return;
    char text[JMSG_LENGTH_MAX];
    errors->manager.format_message(info, text);
    snprintf(errors->message, errors->message_size, "%s", text);
}

static void fail(j_common_ptr info) {
    keep_message(info);
    longjmp(((struct rows_errors *)info->err)->escape, 1);
}

/// Level -1 is a warning (kept, the decode goes on); higher levels are trace messages.
static void note(j_common_ptr info, int level) {
    struct rows_errors *errors = (struct rows_errors *)info->err;
    if (level < 0) {
        errors->warned = 1;
        keep_message(info);
    }
}

/* Sets up `errors` to keep the first message in `message` and to escape on failure; returns the
   manager a decompressor's `err` points at. */
static struct jpeg_error_mgr *errors_init(struct rows_errors *errors, char *message, size_t message_size) {
    if (message_size > 0) message[0] = 0;
    struct jpeg_error_mgr *manager = jpeg_std_error(&errors->manager);
    errors->manager.error_exit = fail;
    errors->manager.emit_message = note;
    errors->warned = 0;
    errors->message = message;
    errors->message_size = message_size;
    errors->stopped = 0;
    return manager;
}

static void check_progress(j_common_ptr info) {
    j_decompress_ptr decompress = (j_decompress_ptr)info;
    struct rows_errors *errors = (struct rows_errors *)info->err;
    if (decompress->input_scan_number > WEBIMAGE_JPEG_MAX_SCANS) {
        snprintf(errors->message, errors->message_size, "Progressive JPEG image has more than %d scans",
                 WEBIMAGE_JPEG_MAX_SCANS);
        longjmp(errors->escape, 1);
    }
    webimage_jpeg_should_stop should_stop = ((struct rows_progress *)info->progress)->should_stop;
    if (should_stop && should_stop()) {
        errors->stopped = 1;
        snprintf(errors->message, errors->message_size, "the decode was stopped");
        longjmp(errors->escape, 1);
    }
}

int webimage_jpeg_decode_rows(const uint8_t *data, size_t size, uint8_t *destination, int width, int height,
                              int cmyk, int scale_num, int scale_denom, int fast, int band_rows,
                              webimage_jpeg_rows_ready ready, void *context, webimage_jpeg_should_stop should_stop,
                              char *message, size_t message_size) {
    struct jpeg_decompress_struct info;
    struct rows_errors errors;
    struct rows_progress progress;
    memset(&info, 0, sizeof info);
    memset(&progress, 0, sizeof progress);
    info.err = errors_init(&errors, message, message_size);
    progress.manager.progress_monitor = check_progress;
    progress.should_stop = should_stop;
    if (setjmp(errors.escape)) {
        // An error once every row is out (a damaged marker after the last scan, met by
        // jpeg_finish_decompress) after damage already warned of: the image stands, as the
        // warning said. Any other error leaves rows unwritten: a failure.
        int complete = height > 0 && (int)info.output_scanline >= height;
        jpeg_destroy_decompress(&info);
        if (errors.stopped) return WEBIMAGE_JPEG_ROWS_STOPPED;
        return errors.warned && complete ? WEBIMAGE_JPEG_ROWS_WARNING : WEBIMAGE_JPEG_ROWS_FAILED;
    }
    jpeg_create_decompress(&info);
    info.progress = &progress.manager;
    jpeg_mem_src(&info, data, (unsigned long)size);
    jpeg_read_header(&info, TRUE);
    info.out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA;
    info.scale_num = (unsigned int)scale_num;
    info.scale_denom = (unsigned int)scale_denom;
    if (fast) {
        info.dct_method = JDCT_FASTEST;
        info.do_fancy_upsampling = FALSE;
    }
    jpeg_start_decompress(&info);
    if ((int)info.output_width != width || (int)info.output_height != height || info.output_components != 4) {
        snprintf(message, message_size, "the decoder's output size %ux%u does not match the planned %dx%d",
                 info.output_width, info.output_height, width, height);
        jpeg_destroy_decompress(&info);
        return WEBIMAGE_JPEG_ROWS_FAILED;
    }
    size_t row_bytes = (size_t)width * 4;
    JSAMPROW rows[32];
    int reported = 0;
    while (info.output_scanline < info.output_height) {
        int first = (int)info.output_scanline;
        int count = height - first < 32 ? height - first : 32;
        for (int i = 0; i < count; i++) rows[i] = destination + (size_t)(first + i) * row_bytes;
        if (jpeg_read_scanlines(&info, rows, (JDIMENSION)count) == 0) {
            snprintf(message, message_size, "the decoder stopped at row %d of %d", first, height);
            jpeg_destroy_decompress(&info);
            return WEBIMAGE_JPEG_ROWS_FAILED;
        }
        int finished = (int)info.output_scanline;
        if (ready && (finished - reported >= band_rows || finished == height)) {
            ready(context, finished);
            reported = finished;
        }
    }
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    return errors.warned ? WEBIMAGE_JPEG_ROWS_WARNING : WEBIMAGE_JPEG_ROWS_CLEAN;
}

int webimage_jpeg_read_header(const uint8_t *data, size_t size, int *width, int *height,
                              enum webimage_jpeg_color *color, char *message, size_t message_size) {
    struct jpeg_decompress_struct info;
    struct rows_errors errors;
    memset(&info, 0, sizeof info);
    info.err = errors_init(&errors, message, message_size);
    if (setjmp(errors.escape)) {
        jpeg_destroy_decompress(&info);
        return -1;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, (unsigned long)size);
    jpeg_read_header(&info, TRUE);
    *width = (int)info.image_width;
    *height = (int)info.image_height;
    switch (info.jpeg_color_space) {
    case JCS_GRAYSCALE: *color = WEBIMAGE_JPEG_COLOR_GRAY; break;
    case JCS_CMYK: case JCS_YCCK: *color = WEBIMAGE_JPEG_COLOR_CMYK; break;
    default: *color = WEBIMAGE_JPEG_COLOR_RGB; break;
    }
    jpeg_destroy_decompress(&info);
    return 0;
}

int webimage_jpeg_library_version(void) {
#ifdef LIBJPEG_TURBO_VERSION_NUMBER
    return LIBJPEG_TURBO_VERSION_NUMBER;
#else
    return 0;
#endif
}

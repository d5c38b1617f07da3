// A JPEG decode through libjpeg-turbo's scanline API that reports each band of finished rows,
// so the caller can work on the top of the image while the rest is still decoding. Its pixels
// are byte for byte those of TurboJPEG's tjDecompress2 with the same settings (the same library
// underneath, the same decoder options). libjpeg reports fatal errors by longjmp, which Swift
// cannot catch; this C function owns the setjmp. Unlike tjDecompress2, it tells an error after
// a warning from the warning: the result is a failure unless every row had been decoded.
#ifndef WEBIMAGE_JPEG_ROWS_H
#define WEBIMAGE_JPEG_ROWS_H

#include <stddef.h>
#include <stdint.h>

/// Called on the decoding thread with the number of rows finished so far (from the top).
typedef void (*webimage_jpeg_rows_ready)(void *context, int finished_rows);

/// Called on the decoding thread between scans and blocks of rows; non-zero stops the decode.
typedef int (*webimage_jpeg_should_stop)(void);

enum webimage_jpeg_rows_result {
    WEBIMAGE_JPEG_ROWS_CLEAN = 0,
    /// libjpeg warned (for example about a premature end); the message says what.
    WEBIMAGE_JPEG_ROWS_WARNING = 1,
    /// The decode failed; the message says why. Rows below those reported may be unwritten.
    WEBIMAGE_JPEG_ROWS_FAILED = -1,
    /// `should_stop` asked the decode to stop; rows below those reported may be unwritten.
    WEBIMAGE_JPEG_ROWS_STOPPED = -2,
};

/// The colour model of a JPEG's components, as `webimage_jpeg_read_header` reports it.
enum webimage_jpeg_color {
    /// RGB or YCbCr (and anything else libjpeg converts to RGB).
    WEBIMAGE_JPEG_COLOR_RGB = 0,
    WEBIMAGE_JPEG_COLOR_GRAY = 1,
    /// CMYK or YCCK.
    WEBIMAGE_JPEG_COLOR_CMYK = 2,
};

/// Decodes `size` bytes of JPEG into `destination` (`width` × `height` pixels of 4 bytes, rows
/// packed): RGBA, or CMYK when `cmyk` is non-zero, DCT-scaled by `scale_num`/`scale_denom`
/// (`width` and `height` must be the scaled size). `fast` selects the fast integer DCT and
/// simple chroma upsampling. Progressive files with more than 500 scans are refused. `ready` is
/// called after every `band_rows` rows or more, and once more when the last row is done.
/// `should_stop` (may be NULL) is asked between scans and blocks of rows.
int webimage_jpeg_decode_rows(const uint8_t *data, size_t size, uint8_t *destination, int width, int height,
                              int cmyk, int scale_num, int scale_denom, int fast, int band_rows,
                              webimage_jpeg_rows_ready ready, void *context, webimage_jpeg_should_stop should_stop,
                              char *message, size_t message_size);

/// Reads the frame header of `size` bytes of JPEG with libjpeg's own `jpeg_read_header`, which
/// takes sampling layouts TurboJPEG's header call refuses. Returns 0 and sets `width`, `height`
/// and `color` on success; -1 with `message` on failure.
int webimage_jpeg_read_header(const uint8_t *data, size_t size, int *width, int *height,
                              enum webimage_jpeg_color *color, char *message, size_t message_size);

/// The libjpeg-turbo version this was built against (LIBJPEG_TURBO_VERSION_NUMBER, e.g. 2001005).
int webimage_jpeg_library_version(void);

#endif

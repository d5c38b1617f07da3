#include <tiffio.h>
#include <stdarg.h>
#include <stdio.h>

// TIFFGetField and TIFFSetField are variadic, which Swift does not import: one typed wrapper per
// shape of value the coder reads or writes. Each returns libtiff's answer (1 = the tag is there).

static inline int ctiff_get_u16(TIFF *tif, uint32_t tag, uint16_t *value) {
    return TIFFGetField(tif, tag, value);
}

static inline int ctiff_get_u32(TIFF *tif, uint32_t tag, uint32_t *value) {
    return TIFFGetField(tif, tag, value);
}

// The value as libtiff would use it, its default when the file does not say.
static inline int ctiff_get_u16_defaulted(TIFF *tif, uint32_t tag, uint16_t *value) {
    return TIFFGetFieldDefaulted(tif, tag, value);
}

// ExtraSamples: a count and a pointer to that many values (owned by libtiff).
static inline int ctiff_get_u16_array(TIFF *tif, uint32_t tag, uint16_t *count, const uint16_t **values) {
    return TIFFGetFieldDefaulted(tif, tag, count, values);
}

// SubIFD: a count and a pointer to that many offsets (owned by libtiff).
static inline int ctiff_get_u64_array(TIFF *tif, uint32_t tag, uint16_t *count, const uint64_t **values) {
    return TIFFGetField(tif, tag, count, values);
}

// ICCProfile: a byte count and a pointer to the bytes (owned by libtiff).
static inline int ctiff_get_bytes(TIFF *tif, uint32_t tag, uint32_t *count, const void **bytes) {
    return TIFFGetField(tif, tag, count, bytes);
}

// ColorMap: three pointers to 2^bits values each (owned by libtiff).
static inline int ctiff_get_colormap(TIFF *tif, const uint16_t **red, const uint16_t **green,
                                     const uint16_t **blue) {
    return TIFFGetField(tif, TIFFTAG_COLORMAP, red, green, blue);
}

static inline int ctiff_set_u16(TIFF *tif, uint32_t tag, uint16_t value) {
    return TIFFSetField(tif, tag, (int)value);
}

static inline int ctiff_set_u32(TIFF *tif, uint32_t tag, uint32_t value) {
    return TIFFSetField(tif, tag, value);
}

// YCbCrSubsampling: two values.
static inline int ctiff_set_u16_pair(TIFF *tif, uint32_t tag, uint16_t first, uint16_t second) {
    return TIFFSetField(tif, tag, (int)first, (int)second);
}

static inline int ctiff_set_u16_array(TIFF *tif, uint32_t tag, uint16_t count, const uint16_t *values) {
    return TIFFSetField(tif, tag, count, values);
}

static inline int ctiff_set_u64_array(TIFF *tif, uint32_t tag, uint16_t count, const uint64_t *values) {
    return TIFFSetField(tif, tag, count, values);
}

static inline int ctiff_set_bytes(TIFF *tif, uint32_t tag, uint32_t count, const void *bytes) {
    return TIFFSetField(tif, tag, count, bytes);
}

static inline int ctiff_set_colormap(TIFF *tif, const uint16_t *red, const uint16_t *green, const uint16_t *blue) {
    return TIFFSetField(tif, TIFFTAG_COLORMAP, red, green, blue);
}

// Formats one libtiff message (its printf-style format and arguments) into `buffer`.
static inline void ctiff_format(char *buffer, size_t size, const char *format, va_list arguments) {
    vsnprintf(buffer, size, format, arguments);
}

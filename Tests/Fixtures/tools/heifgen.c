// Writes HEIC fixtures that heif-enc cannot: an irot/imir orientation, a thumbnail item that
// shows a different picture from its primary image (so a test can tell which one was decoded),
// and the colour tests' patch tagged by an nclx colr box (heif-enc 1.15 leaves libheif's
// macOS workaround on, which writes no nclx box).
#include <libheif/heif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check(struct heif_error e, const char *what) {
  if (e.code != heif_error_Ok) { fprintf(stderr, "%s: %s\n", what, e.message); exit(1); }
}

// The four-quadrant picture of mkpng.py (opaque); solid fills one colour instead.
static struct heif_image *picture(int w, int h, int solid, unsigned char sr, unsigned char sg, unsigned char sb) {
  struct heif_image *img;
  check(heif_image_create(w, h, heif_colorspace_RGB, heif_chroma_interleaved_RGB, &img), "create");
  check(heif_image_add_plane(img, heif_channel_interleaved, w, h, 8), "plane");
  int stride;
  uint8_t *p = heif_image_get_plane(img, heif_channel_interleaved, &stride);
  for (int y = 0; y < h; y++) for (int x = 0; x < w; x++) {
    int gx = x * 255 / (w - 1), gy = y * 255 / (h - 1), left = x < w / 2, top = y < h / 2;
    int c[3];
    if (solid) { c[0] = sr; c[1] = sg; c[2] = sb; }
    else if (top && left) { c[0] = 220; c[1] = 40 + gx / 4; c[2] = 40; }
    else if (top) { c[0] = 40; c[1] = 200; c[2] = 40 + gy / 4; }
    else if (left) { c[0] = 40 + gx / 4; c[1] = 40; c[2] = 210; }
    else { c[0] = 230; c[1] = 220; c[2] = 40 + gy / 4; }
    memcpy(p + y * stride + x * 3, (uint8_t[]){c[0], c[1], c[2]}, 3);
  }
  return img;
}

static struct heif_encoder *encoder(struct heif_context *ctx) {
  struct heif_encoder *enc;
  check(heif_context_get_encoder_for_format(ctx, heif_compression_HEVC, &enc), "encoder");
  check(heif_encoder_set_lossy_quality(enc, 60), "quality");
  return enc;
}

static void oriented(const char *path, enum heif_orientation orientation) {
  struct heif_context *ctx = heif_context_alloc();
  struct heif_encoder *enc = encoder(ctx);
  struct heif_encoding_options *opt = heif_encoding_options_alloc();
  opt->image_orientation = orientation;
  struct heif_image *img = picture(64, 48, 0, 0, 0, 0);
  check(heif_context_encode_image(ctx, img, enc, opt, NULL), "encode");
  check(heif_context_write_to_file(ctx, path), "write");
  heif_image_release(img); heif_encoding_options_free(opt); heif_encoder_release(enc); heif_context_free(ctx);
}

static void markedThumbnail(const char *path) {
  struct heif_context *ctx = heif_context_alloc();
  struct heif_encoder *enc = encoder(ctx);
  struct heif_image *main = picture(128, 96, 0, 0, 0, 0);
  struct heif_image *thumb = picture(64, 48, 1, 200, 30, 200);
  struct heif_image_handle *mainHandle, *thumbHandle;
  check(heif_context_encode_image(ctx, main, enc, NULL, &mainHandle), "encode main");
  check(heif_context_encode_image(ctx, thumb, enc, NULL, &thumbHandle), "encode thumbnail");
  // libheif 1.15 reads this call's two handles the other way round from its header's names:
  // (thumbnail, master) gives the primary image the thumbnail, as heif-info confirms.
  check(heif_context_assign_thumbnail(ctx, thumbHandle, mainHandle), "assign");
  check(heif_context_set_primary_image(ctx, mainHandle), "primary");
  check(heif_context_write_to_file(ctx, path), "write");
  heif_image_handle_release(mainHandle); heif_image_handle_release(thumbHandle);
  heif_image_release(main); heif_image_release(thumb); heif_encoder_release(enc); heif_context_free(ctx);
}

// A 16x16 patch of (230, 60, 40) tagged by an nclx box: `primaries`/`transfer` as H.273 numbers,
// BT.601 matrix, full range.
static void nclxPatch(const char *path, int primaries, int transfer) {
  struct heif_context *ctx = heif_context_alloc();
  struct heif_encoder *enc = encoder(ctx);
  struct heif_encoding_options *opt = heif_encoding_options_alloc();
  struct heif_color_profile_nclx *nclx = heif_nclx_color_profile_alloc();
  check(heif_nclx_color_profile_set_color_primaries(nclx, primaries), "primaries");
  check(heif_nclx_color_profile_set_transfer_characteristics(nclx, transfer), "transfer");
  check(heif_nclx_color_profile_set_matrix_coefficients(nclx, 6), "matrix");
  nclx->full_range_flag = 1;
  opt->output_nclx_profile = nclx;
  opt->macOS_compatibility_workaround_no_nclx_profile = 0;
  struct heif_image *img = picture(16, 16, 1, 230, 60, 40);
  check(heif_image_set_nclx_color_profile(img, nclx), "image nclx");
  check(heif_context_encode_image(ctx, img, enc, opt, NULL), "encode");
  check(heif_context_write_to_file(ctx, path), "write");
  heif_nclx_color_profile_free(nclx);
  heif_image_release(img); heif_encoding_options_free(opt); heif_encoder_release(enc); heif_context_free(ctx);
}

int main(void) {
  heif_init(NULL);
  oriented("orientation-6.heic", heif_orientation_rotate_90_cw);
  oriented("orientation-7.heic", heif_orientation_rotate_90_cw_then_flip_vertically);
  markedThumbnail("marked-thumbnail.heic");
  nclxPatch("p3-nclx.heic", 12, 13);
  nclxPatch("srgb-nclx.heic", 1, 13);
  heif_deinit();
  return 0;
}

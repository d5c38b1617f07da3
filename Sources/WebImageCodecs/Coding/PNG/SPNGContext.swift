import CSPNG

/// Owns one libspng context for the length of one decode or encode, and turns its error codes
/// into ``WebImageError``s.
final class SPNGContext {
    let raw: OpaquePointer

    /// A decoder reading `bytes`, which must stay valid while this context lives.
    ///
    /// libspng's own dimension limit is set from `limits` so absurd headers fail in the parser,
    /// and ancillary chunks are capped so metadata cannot balloon memory. A critical chunk with a
    /// wrong CRC is an error; an ancillary one is skipped (libpng's choice too).
    init(decoding bytes: UnsafeBufferPointer<UInt8>, limits: DecodeLimits) throws {
        guard let base = bytes.baseAddress, bytes.count >= 8 else {
            throw WebImageError.badData("The PNG data is empty or shorter than the PNG signature.")
        }
        guard let ctx = spng_ctx_new(0) else {
            throw WebImageError.badData("Could not create a PNG decoder (out of memory).")
        }
        raw = ctx
        let side = UInt32(clamping: min(limits.maxPixels, Int(Int32.max)))
        try check(spng_set_image_limits(ctx, side, side), "setting the image limits")
        try check(spng_set_chunk_limits(ctx, 16 << 20, 64 << 20), "setting the chunk limits")
        try check(spng_set_crc_action(ctx, Int32(SPNG_CRC_ERROR.rawValue), Int32(SPNG_CRC_DISCARD.rawValue)),
                  "setting the checksum policy")
        try check(spng_set_png_buffer(ctx, base, bytes.count), "reading the PNG data")
    }

    /// An encoder that writes into an internal buffer.
    init(encoding: ()) throws {
        guard let ctx = spng_ctx_new(Int32(SPNG_CTX_ENCODER.rawValue)) else {
            throw WebImageError(.encodingFailed, "Could not create a PNG encoder (out of memory).")
        }
        raw = ctx
        try check(spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1), "setting up the PNG encoder",
                  code: .encodingFailed)
    }

    deinit { spng_ctx_free(raw) }

    /// The image header; throws for a missing or invalid IHDR.
    func header() throws -> spng_ihdr {
        var ihdr = spng_ihdr()
        try check(spng_get_ihdr(raw, &ihdr), "reading the PNG header")
        return ihdr
    }

    /// Reads the chunks after the image data, which checks the last image data chunk's CRC:
    /// libspng stops reading at the end of the compressed stream, before that CRC. Throws for a
    /// wrong CRC only; a file that ends without `IEND` or with trailing bytes still decodes.
    func checkTrailingChecksums() throws {
        let rc = spng_decode_chunks(raw)
        guard rc == Int32(SPNG_ECHUNK_CRC.rawValue) else { return }
        throw WebImageError.badData("The PNG image data fails its checksum (\(spngReason(rc))); the file is corrupt.")
    }

    /// Throws unless `rc` is success, naming `what` was being done and libspng's reason.
    func check(_ rc: Int32, _ what: String, code: WebImageError.Code = .badImageData) throws {
        try spngCheck(rc, what, code: code)
    }
}

/// Throws unless `rc` is libspng's success code. Size-limit failures become
/// ``WebImageError/Code/imageTooLarge``; everything else `code`.
func spngCheck(_ rc: Int32, _ what: String, code: WebImageError.Code = .badImageData) throws {
    guard rc != 0 else { return }
    let reason = spngReason(rc)
    let tooLarge = [SPNG_EUSER_WIDTH, SPNG_EUSER_HEIGHT].map { Int32($0.rawValue) }
    if tooLarge.contains(rc) {
        throw WebImageError(.imageTooLarge,
            "The PNG header declares a size past the decode limit (\(reason)); ask for a thumbnail or raise DecodeLimits.maxPixels.")
    }
    let suffix = code == .badImageData ? " The file is corrupt, truncated or not a PNG." : ""
    throw WebImageError(code, "libspng failed while \(what): \(reason).\(suffix)")
}

/// libspng's text for an error code.
func spngReason(_ rc: Int32) -> String {
    guard let text = spng_strerror(rc) else { return "error \(rc)" }
    return String(cString: text)
}

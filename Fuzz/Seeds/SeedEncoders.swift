import CGIF
import CSPNG
import CTurboJPEG
import Foundation
import WebImageCodecs

/// Encoders for the seed variants the library's own encoders do not produce (progressive and
/// grayscale JPEG, palette/gray/16-bit/interlaced PNG, interlaced GIF), on the same C libraries.
enum SeedEncoders {
    struct Failure: Error, CustomStringConvertible { let description: String }

    /// A JPEG of `bitmap` through TurboJPEG with the given subsampling and flags.
    static func jpeg(_ bitmap: Bitmap, subsampling: TJSAMP, progressive: Bool = false,
                     quality: Int32 = 85) throws -> [UInt8] {
        guard let handle = tjInitCompress() else { throw Failure(description: "tjInitCompress") }
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var length: UInt = 0
        let flags = progressive ? TJFLAG_PROGRESSIVE : 0
        let rc = bitmap.pixels.withUnsafeBufferPointer {
            tjCompress2(handle, $0.baseAddress, Int32(bitmap.width), Int32(bitmap.width * 4), Int32(bitmap.height),
                        Int32(TJPF_RGBA.rawValue), &output, &length, Int32(subsampling.rawValue), quality, flags)
        }
        guard rc == 0, let output else { throw Failure(description: "tjCompress2 failed") }
        defer { tjFree(output) }
        return Array(UnsafeBufferPointer(start: output, count: Int(length)))
    }

    /// `jpeg` with an APP1 EXIF segment holding `orientation` inserted after SOI.
    static func withEXIF(_ jpeg: [UInt8], orientation: UInt16) -> [UInt8] {
        let exif = SeedPictures.exif(orientation: orientation)
        let length = exif.count + 2
        return Array(jpeg[0..<2]) + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + exif + Array(jpeg[2...])
    }

    /// `jpeg` with `icc` in APP2 `ICC_PROFILE` chunks of `chunkSize` bytes after SOI; `dropLast`
    /// leaves the last chunk out (an incomplete set).
    static func withICC(_ jpeg: [UInt8], _ icc: [UInt8], chunkSize: Int, dropLast: Bool = false) -> [UInt8] {
        let chunks = stride(from: 0, to: icc.count, by: chunkSize).map { Array(icc[$0..<min($0 + chunkSize, icc.count)]) }
        var out = Array(jpeg[0..<2])
        for (index, chunk) in chunks.enumerated() where !(dropLast && index == chunks.count - 1) {
            let payload = Array("ICC_PROFILE\0".utf8) + [UInt8(index + 1), UInt8(chunks.count)] + chunk
            let length = payload.count + 2
            out += [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        }
        return out + Array(jpeg[2...])
    }

    /// A PNG through libspng from raw samples already in the layout `ihdr` declares.
    static func png(_ ihdr: spng_ihdr, samples: [UInt8], palette: [(UInt8, UInt8, UInt8)] = [],
                    paletteAlpha: [UInt8] = []) throws -> [UInt8] {
        guard let ctx = spng_ctx_new(Int32(SPNG_CTX_ENCODER.rawValue)) else { throw Failure(description: "spng_ctx_new") }
        defer { spng_ctx_free(ctx) }
        var header = ihdr
        try check(spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1))
        try check(spng_set_ihdr(ctx, &header))
        if !palette.isEmpty {
            var plte = spng_plte()
            plte.n_entries = UInt32(palette.count)
            withUnsafeMutableBytes(of: &plte.entries) { raw in
                let entries = raw.bindMemory(to: spng_plte_entry.self)
                for (i, c) in palette.enumerated() { entries[i] = spng_plte_entry(red: c.0, green: c.1, blue: c.2, alpha: 255) }
            }
            try check(spng_set_plte(ctx, &plte))
        }
        if !paletteAlpha.isEmpty {
            var trns = spng_trns()
            trns.n_type3_entries = UInt32(paletteAlpha.count)
            withUnsafeMutableBytes(of: &trns.type3_alpha) { raw in
                for (i, a) in paletteAlpha.enumerated() { raw[i] = a }
            }
            try check(spng_set_trns(ctx, &trns))
        }
        try samples.withUnsafeBytes { raw in
            try check(spng_encode_image(ctx, raw.baseAddress, raw.count, Int32(SPNG_FMT_PNG.rawValue),
                                        Int32(SPNG_ENCODE_FINALIZE.rawValue)))
        }
        var length = 0
        var error: Int32 = 0
        guard let buffer = spng_get_png_buffer(ctx, &length, &error) else { throw Failure(description: "no PNG buffer") }
        defer { free(buffer) }
        return Array(UnsafeRawBufferPointer(start: buffer, count: length))
    }

    private static func check(_ rc: Int32) throws {
        if rc != 0 { throw Failure(description: "libspng: \(String(cString: spng_strerror(rc)))") }
    }

    /// A one-frame GIF (GIF89a) with a 16-colour palette; `interlaced` writes the rows in the
    /// four-pass order the flag promises.
    static func gif(width: Int, height: Int, interlaced: Bool) throws -> [UInt8] {
        final class Sink { var bytes: [UInt8] = [] }
        let sink = Sink()
        let writeBytes: OutputFunc = { file, data, count in
            guard let file, let data, let user = file.pointee.UserData else { return 0 }
            Unmanaged<Sink>.fromOpaque(user).takeUnretainedValue().bytes
                .append(contentsOf: UnsafeBufferPointer(start: data, count: Int(count)))
            return count
        }
        var error: Int32 = 0
        guard let file = EGifOpen(Unmanaged.passUnretained(sink).toOpaque(), writeBytes, &error) else {
            throw Failure(description: "EGifOpen \(error)")
        }
        var colors: [GifColorType] = (0..<16).map { (i: Int) -> GifColorType in
            let level = UInt8(i * 17)
            return GifColorType(Red: level, Green: 255 - level, Blue: UInt8(i * 5))
        }
        guard let map = GifMakeMapObject(16, &colors) else { throw Failure(description: "GifMakeMapObject") }
        defer { GifFreeMapObject(map) }
        EGifSetGifVersion(file, true)
        var ok = EGifPutScreenDesc(file, Int32(width), Int32(height), 4, 0, map) == GIF_OK
        ok = ok && EGifPutImageDesc(file, 0, 0, Int32(width), Int32(height), interlaced, nil) == GIF_OK
        let order: [Int] = interlaced
            ? Array(stride(from: 0, to: height, by: 8)) + Array(stride(from: 4, to: height, by: 8))
                + Array(stride(from: 2, to: height, by: 4)) + Array(stride(from: 1, to: height, by: 2))
            : Array(0..<height)
        for y in order where ok {
            var line: [GifPixelType] = (0..<width).map { (x: Int) -> GifPixelType in GifPixelType((x / 3 + y / 2) % 16) }
            ok = EGifPutLine(file, &line, Int32(width)) == GIF_OK
        }
        var closeError: Int32 = 0
        let closed = EGifCloseFile(file, &closeError) == GIF_OK
        guard ok, closed else { throw Failure(description: "giflib write failed (\(closeError))") }
        return sink.bytes
    }
}

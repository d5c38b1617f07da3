import CWebP
import Foundation

/// Metadata written into an encoded image's container after its encode: an ICC profile and an
/// EXIF block. JPEG (APP1 `Exif` and APP2 `ICC_PROFILE` segments after SOI and any JFIF APP0),
/// PNG and APNG (`iCCP` and `eXIf` after `IHDR`) and WebP (`ICCP` and `EXIF` chunks, through
/// libwebp's muxer) carry it; other formats are returned unchanged.
public struct EmbeddedMetadata: Sendable, Hashable {
    /// The ICC profile the pixels are in; nil writes none.
    public var iccProfile: Data?
    /// EXIF as a TIFF structure (from its `II*\0` or `MM\0*` header, without JPEG's `Exif\0\0`);
    /// nil writes none.
    public var exif: Data?

    /// Metadata of the given parts.
    public init(iccProfile: Data? = nil, exif: Data? = nil) {
        self.iccProfile = iccProfile
        self.exif = exif
    }

    /// True when there is nothing to write.
    public var isEmpty: Bool { (iccProfile?.isEmpty ?? true) && (exif?.isEmpty ?? true) }

    /// The formats whose containers this writes into.
    public static let formats: Set<ImageFormat> = [.jpeg, .png, .apng, .webp]

    /// `data`, an encoded image of `format`, with this metadata in its container; `data` itself
    /// when there is none or the format is not one of ``formats``. A part too large for its
    /// container (EXIF over one JPEG segment, an ICC profile over 255 segments) is left out.
    public func embed(in data: Data, format: ImageFormat) throws -> Data {
        guard !isEmpty else { return data }
        switch format {
        case .jpeg: return embedJPEG(data)
        case .png, .apng: return embedPNG(data)
        case .webp: return try embedWebP(data)
        default: return data
        }
    }

    // MARK: JPEG

    private func embedJPEG(_ data: Data) -> Data {
        let bytes = [UInt8](data)
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return data }
        var insertAt = 2
        // After a JFIF APP0, which readers expect first.
        if bytes[2] == 0xFF, bytes[3] == 0xE0, bytes.count > 6 {
            insertAt = min(4 + (Int(bytes[4]) << 8 | Int(bytes[5])), bytes.count)
        }
        var segments: [UInt8] = []
        if let exif, !exif.isEmpty, exif.count + 8 <= 0xFFFF {
            segments += Self.segment(0xE1, Array("Exif\0\0".utf8) + [UInt8](exif))
        }
        if let icc = iccProfile, !icc.isEmpty {
            let chunkSize = 0xFFFF - 2 - 14
            let profile = [UInt8](icc)
            let count = (profile.count + chunkSize - 1) / chunkSize
            if count <= 255 {
                for index in 0..<count {
                    let chunk = profile[index * chunkSize..<min((index + 1) * chunkSize, profile.count)]
                    segments += Self.segment(0xE2, Array("ICC_PROFILE\0".utf8) + [UInt8(index + 1), UInt8(count)] + chunk)
                }
            }
        }
        var out = [UInt8](bytes[..<insertAt])
        out += segments
        out += bytes[insertAt...]
        return Data(out)
    }

    /// A JPEG marker segment: `FF marker`, the big-endian length (payload + 2), the payload.
    private static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    // MARK: PNG

    private func embedPNG(_ data: Data) -> Data {
        let bytes = [UInt8](data)
        // The signature (8) and IHDR (length, type, 13 bytes, CRC).
        let afterHeader = 8 + 4 + 4 + 13 + 4
        guard bytes.count > afterHeader, Array(bytes[12..<16]) == Array("IHDR".utf8) else { return data }
        var chunks: [UInt8] = []
        if let icc = iccProfile, !icc.isEmpty {
            chunks += Self.chunk("iCCP", Array("icc\0".utf8) + [0] + Self.zlibStored([UInt8](icc)))
        }
        if let exif, !exif.isEmpty { chunks += Self.chunk("eXIf", [UInt8](exif)) }
        var out = [UInt8](bytes[..<afterHeader])
        out += chunks
        out += bytes[afterHeader...]
        return Data(out)
    }

    /// A PNG chunk: the big-endian length, the type, the data and the CRC of type and data.
    private static func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + payload
        return bigEndian(UInt32(payload.count)) + typed + bigEndian(CRC32.checksum(typed))
    }

    /// `bytes` as a zlib stream of stored (uncompressed) deflate blocks, as `iCCP` requires a
    /// zlib stream; profiles are small, and compressing them would need zlib.
    static func zlibStored(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(0xFFFF, bytes.count - offset)
            let last: UInt8 = offset + count == bytes.count ? 1 : 0
            out += [last, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += bytes[offset..<offset + count]
            offset += count
        } while offset < bytes.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return out + bigEndian(b << 16 | a)
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    // MARK: WebP

    private func embedWebP(_ data: Data) throws -> Data {
        try data.withUnsafeBytes { image in
            var imageData = WebPData(bytes: image.baseAddress?.assumingMemoryBound(to: UInt8.self), size: image.count)
            guard let mux = WebPMuxCreate(&imageData, 1) else {
                throw WebImageError(.encodingFailed, "libwebp could not read the encoded WebP to add its metadata.")
            }
            defer { WebPMuxDelete(mux) }
            for (fourCC, part) in [("ICCP", iccProfile), ("EXIF", exif)] {
                guard let part, !part.isEmpty else { continue }
                let status = part.withUnsafeBytes { bytes in
                    var chunk = WebPData(bytes: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), size: bytes.count)
                    return WebPMuxSetChunk(mux, fourCC, &chunk, 1)
                }
                guard status == WEBP_MUX_OK else {
                    throw WebImageError(.encodingFailed, "libwebp could not add the \(fourCC) chunk.")
                }
            }
            var assembled = WebPData()
            guard WebPMuxAssemble(mux, &assembled) == WEBP_MUX_OK, let bytes = assembled.bytes else {
                throw WebImageError(.encodingFailed, "libwebp could not assemble the WebP with its metadata.")
            }
            defer { WebPDataClear(&assembled) }
            return Data(bytes: bytes, count: assembled.size)
        }
    }
}

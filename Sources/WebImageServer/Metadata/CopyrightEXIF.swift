import Foundation
import WebImageCodecs

/// The EXIF fields `keep_copyright` keeps, as imgproxy keeps them through libvips: IFD0's
/// Artist (0x013B) and Copyright (0x8298), ASCII. Read from a JPEG's APP1 `Exif` segment, a
/// PNG's `eXIf` chunk or a WebP's `EXIF` chunk, and written as a TIFF structure of only them.
struct CopyrightEXIF: Sendable, Equatable {
    /// The Artist tag's bytes, without its terminating NUL.
    var artist: [UInt8]?
    /// The Copyright tag's bytes, without its terminating NUL.
    var copyright: [UInt8]?

    static let artistTag: UInt16 = 0x013B
    static let copyrightTag: UInt16 = 0x8298
    /// The longest field kept, in bytes: a field longer than this is left out.
    static let maxFieldBytes = 4096

    var isEmpty: Bool { artist == nil && copyright == nil }

    /// The fields in the EXIF of the encoded image `data`; empty when it has none or they
    /// cannot be read.
    init(source data: Data) {
        self.init(tiff: Self.exifBlock(in: data) ?? [])
    }

    init(artist: [UInt8]? = nil, copyright: [UInt8]? = nil) {
        self.artist = artist
        self.copyright = copyright
    }

    /// The fields in the TIFF structure `tiff`; every offset is checked against its size.
    init(tiff: [UInt8]) {
        guard tiff.count >= 8, let reader = TIFFIntegers(tiff) else { return }
        let u16 = reader.u16, u32 = reader.u32
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return }
        for index in 0..<count {
            let entry = ifd + 2 + index * 12
            guard let tag = u16(entry), let type = u16(entry + 2), let length = u32(entry + 4) else { return }
            guard type == 2, tag == Int(Self.artistTag) || tag == Int(Self.copyrightTag),
                  length > 0, length <= Self.maxFieldBytes else { continue }
            let start = length <= 4 ? entry + 8 : (u32(entry + 8) ?? -1)
            guard start >= 0, start + length <= tiff.count else { continue }
            var value = Array(tiff[start..<start + length])
            while value.last == 0 { value.removeLast() }
            guard !value.isEmpty else { continue }
            if tag == Int(Self.artistTag) { artist = value } else { copyright = value }
        }
    }

    /// A little-endian TIFF structure holding only IFD0's Artist and Copyright; nil when empty.
    var tiff: Data? {
        var fields: [(tag: UInt16, value: [UInt8])] = []
        if let artist { fields.append((Self.artistTag, artist + [0])) }
        if let copyright { fields.append((Self.copyrightTag, copyright + [0])) }
        guard !fields.isEmpty else { return nil }
        var out: [UInt8] = [0x49, 0x49, 42, 0] + Self.le32(8)
        out += Self.le16(fields.count)
        var dataOffset = 8 + 2 + fields.count * 12 + 4
        var values: [UInt8] = []
        for (tag, value) in fields {
            out += Self.le16(Int(tag)) + Self.le16(2) + Self.le32(value.count)
            if value.count <= 4 {
                out += value + [UInt8](repeating: 0, count: 4 - value.count)
            } else {
                out += Self.le32(dataOffset)
                values += value
                dataOffset += value.count
            }
        }
        return Data(out + Self.le32(0) + values)
    }

    private static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)] }
    private static func le32(_ value: Int) -> [UInt8] { le16(value & 0xFFFF) + le16((value >> 16) & 0xFFFF) }

    /// The TIFF structure of the first EXIF block in the JPEG, PNG or WebP file `data`, found by
    /// walking its segments or chunks (no pixel data is read).
    static func exifBlock(in data: Data) -> [UInt8]? {
        data.withUnsafeBytes { raw in exifBlock(in: raw.bindMemory(to: UInt8.self)) }
    }

    private static func exifBlock(in bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        if bytes.starts(with: [0xFF, 0xD8]) { return jpegEXIF(bytes) }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return pngEXIF(bytes) }
        if bytes.count >= 12, bytes.starts(with: Array("RIFF".utf8)), Array(bytes[8..<12]) == Array("WEBP".utf8) {
            return webpEXIF(bytes)
        }
        return nil
    }

    private static func jpegEXIF(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var at = 2
        let header = Array("Exif\0\0".utf8)
        while at + 4 <= bytes.count, bytes[at] == 0xFF {
            let marker = bytes[at + 1]
            if marker == 0xDA || marker == 0xD9 { return nil }
            let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            guard length >= 2, at + 2 + length <= bytes.count else { return nil }
            let payload = bytes[(at + 4)..<(at + 2 + length)]
            if marker == 0xE1, payload.starts(with: header) { return Array(payload.dropFirst(header.count)) }
            at += 2 + length
        }
        return nil
    }

    private static func pngEXIF(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var at = 8
        while at + 12 <= bytes.count {
            let length = Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            let type = Array(bytes[(at + 4)..<(at + 8)])
            guard length >= 0, at + 12 + length <= bytes.count else { return nil }
            if type == Array("eXIf".utf8) { return Array(bytes[(at + 8)..<(at + 8 + length)]) }
            if type == Array("IDAT".utf8) || type == Array("IEND".utf8) { return nil }
            at += 12 + length
        }
        return nil
    }

    private static func webpEXIF(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var at = 12
        let header = Array("Exif\0\0".utf8)
        while at + 8 <= bytes.count {
            let size = Int(bytes[at + 4]) | Int(bytes[at + 5]) << 8 | Int(bytes[at + 6]) << 16 | Int(bytes[at + 7]) << 24
            guard at + 8 + size <= bytes.count else { return nil }
            if Array(bytes[at..<(at + 4)]) == Array("EXIF".utf8) {
                let payload = Array(bytes[(at + 8)..<(at + 8 + size)])
                return payload.starts(with: header) ? Array(payload.dropFirst(header.count)) : payload
            }
            at += 8 + size + (size & 1)
        }
        return nil
    }
}

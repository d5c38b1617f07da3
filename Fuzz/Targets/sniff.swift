import Foundation
import WebImageCodecs

/// Format sniffing: `ImageFormat.detect` on arbitrary bytes must agree between its two entry
/// points, only name a format whose signature is really there, agree with which coders claim the
/// data, and the MIME type / extension mappings must round-trip.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSniff(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let raw = UnsafeRawBufferPointer(start: bytes, count: count)
    let data = Data(raw)
    let format = ImageFormat.detect(data)
    let viaBuffer = raw.withMemoryRebound(to: UInt8.self) { ImageFormat.detect($0) }
    require(format == viaBuffer, "detect(Data) = \(format), detect(buffer) = \(viaBuffer)")

    let b = [UInt8](raw)
    func startsWith(_ signature: [UInt8], at offset: Int = 0) -> Bool {
        b.count >= offset + signature.count && Array(b[offset..<offset + signature.count]) == signature
    }
    switch format {
    case .jpeg: require(startsWith([0xFF, 0xD8, 0xFF]), "JPEG without FF D8 FF")
    case .png, .apng: require(startsWith([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "PNG without its signature")
    case .gif: require(startsWith(Array("GIF87a".utf8)) || startsWith(Array("GIF89a".utf8)), "GIF without GIF8xa")
    case .webp: require(startsWith(Array("RIFF".utf8)) && startsWith(Array("WEBPVP8".utf8), at: 8), "WebP without RIFF/WEBPVP8")
    case .pdf: require(startsWith(Array("%PDF-".utf8)), "PDF without %PDF-")
    case .heic, .heif, .avif: require(startsWith(Array("ftyp".utf8), at: 4), "\(format) without ftyp")
    case .jpegXL:
        require(startsWith([0xFF, 0x0A]) || startsWith([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]),
                "JPEG XL without its codestream or container signature")
    default: break
    }

    let decodable: Set<ImageFormat> = [.jpeg, .png, .apng, .gif, .webp, .avif, .heic, .heif, .jpegXL, .svg, .tiff, .bmp, .ico]
    require(CodersManager.shared.canDecode(data) == decodable.contains(format),
            "canDecode disagrees with detect (\(format))")

    // The name mappings round-trip, and arbitrary text never traps them.
    if format != .undefined {
        require(ImageFormat(mimeType: format.mimeType) == format, "MIME type of \(format) does not map back")
        require(ImageFormat(fileExtension: format.fileExtension) == format, "extension of \(format) does not map back")
    }
    let text = String(decoding: b, as: UTF8.self)
    _ = ImageFormat(mimeType: text)
    _ = ImageFormat(fileExtension: text)
    return 0
}

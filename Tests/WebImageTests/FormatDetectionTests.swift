import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

@Suite("Format detection")
struct FormatDetectionTests {
    static func bytes(_ values: [UInt8], padTo count: Int = 32) -> Data {
        Data(values + [UInt8](repeating: 0, count: max(0, count - values.count)))
    }

    static let png = [UInt8]([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])

    static func ftyp(_ major: String, _ compatible: [String]) -> Data {
        let brands = [major, "\0\0\0\0"] + compatible
        let size = 8 + brands.count * 4
        return Data([0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + brands.flatMap { Array($0.utf8) })
            + Data(count: 16)
    }

    /// The signature of every format, with the format it must be recognised as.
    static let signatures: [(Data, ImageFormat)] = [
        (bytes([0xFF, 0xD8, 0xFF, 0xE0]), ImageFormat.jpeg),
        (bytes(png), .png),
        (Data("GIF89a".utf8) + Data(count: 20), .gif),
        (Data("GIF87a".utf8) + Data(count: 20), .gif),
        (Data("RIFF\0\0\0\0WEBPVP8 ".utf8) + Data(count: 10), .webp),
        (Data("RIFF\0\0\0\0WEBPVP8L".utf8) + Data(count: 10), .webp),
        (bytes([0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]), .tiff),
        (bytes([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 8]), .tiff),
        (bytes([0x49, 0x49, 0x2B, 0x00, 8, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0]), .tiff),
        (bytes([0x4D, 0x4D, 0x00, 0x2B, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16]), .tiff),
        (bytes([0x42, 0x4D] + [UInt8](repeating: 0, count: 12) + [40, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 24, 0]), .bmp),
        (bytes([0x42, 0x4D] + [UInt8](repeating: 0, count: 12) + [12, 0, 0, 0, 1, 0, 1, 0, 1, 0, 8, 0]), .bmp),
        (bytes([0, 0, 1, 0, 1, 0, 16, 16, 0, 0, 1, 0, 32, 0, 0x68, 4, 0, 0, 22, 0, 0, 0]), .ico),
        (bytes([0, 0, 2, 0, 1, 0, 32, 32, 0, 0, 5, 0, 7, 0, 0x30, 1, 0, 0, 22, 0, 0, 0]), .ico),
        (ftyp("heic", ["mif1", "heic"]), .heic),
        (ftyp("mif1", ["mif1"]), .heif),
        (ftyp("avif", ["avif", "mif1"]), .avif),
        (ftyp("mif1", ["avif"]), .avif),
        (ftyp("avis", ["avis", "msf1"]), .avif),
        (ftyp("msf1", ["msf1", "iso8", "avis"]), .avif),
        (ftyp("heix", ["mif1", "heix"]), .heic),
        (ftyp("hevc", ["msf1", "hevc"]), .heic),
        (ftyp("mif1", ["mif1", "heim"]), .heic),
        (ftyp("msf1", ["msf1", "hevs"]), .heic),
        (ftyp("msf1", ["msf1", "iso8"]), .heif),
        (ftyp("heic", ["mif1", "heic", "avif"]), .heic),
        (bytes([0xFF, 0x0A, 0x00]), .jpegXL),
        (bytes([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]), .jpegXL),
        (Data("%PDF-1.7\n".utf8), .pdf),
        (Data("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>".utf8), .svg),
        (Data("  <svg width=\"10\"/>".utf8), .svg),
    ]

    @Test("whole signatures are recognised", arguments: signatures)
    func recognises(data: Data, expected: ImageFormat) {
        #expect(ImageFormat.detect(data) == expected)
    }

    @Test("near misses are not images", arguments: [
        Data(), Data([0xFF]), Data([0xFF, 0xD8]), Data("GIF".utf8), Data("Good morning".utf8),
        Data("GIF90a and more text".utf8), Data("RIFF\0\0\0\0WAVEfmt ".utf8), Data("BM".utf8),
        Data("BMP is a format, this is text about it".utf8), Data(png.prefix(7)),
        Data("<html><body>Not found</body></html>".utf8), Data("%PD".utf8),
        Data("<!DOCTYPE html><html><p>an <svgfoo> tag</p></html>".utf8),
        Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x00]),
    ])
    func rejectsNearMisses(data: Data) {
        #expect(ImageFormat.detect(data) == .undefined)
    }

    @Test("JPEG XL needs its whole codestream or container signature")
    func jpegXLNearMisses() {
        let container: [UInt8] = [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
        #expect(ImageFormat.detect(Data([0xFF, 0x0A])) == .jpegXL)
        #expect(ImageFormat.detect(Data(container)) == .jpegXL)
        #expect(ImageFormat.detect(Data([0xFF, 0x0B, 0x00])) == .undefined)
        #expect(ImageFormat.detect(Data(container.dropLast())) == .undefined)
        #expect(ImageFormat.detect(Data(container.dropLast() + [0x0B])) == .undefined)
        #expect(ImageFormat.detect(Data([0, 0, 0, 0x0C] + Array("JXL ftyp".utf8))) == .undefined)
    }

    /// Headers with a right first few bytes and an impossible rest.
    static let implausibleHeaders: [[UInt8]] = {
        let bmp: [UInt8] = [0x42, 0x4D] + [UInt8](repeating: 0, count: 12)
        let info: [UInt8] = [40, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]
        let icon: [UInt8] = [0, 0, 1, 0, 1, 0, 16, 16, 0, 0, 1, 0]
        var headers: [[UInt8]] = []
        // TIFF without a first directory past the header; a BigTIFF with another offset size.
        headers.append([0x49, 0x49, 0x2A, 0x00])
        headers.append([0x4D, 0x4D, 0x00, 0x2A, 0, 0, 0, 4])
        headers.append([0x49, 0x49, 0x2B, 0x00, 4, 0, 0, 0, 16])
        // BMP with zero planes, or with a bit depth BMP does not have.
        headers.append(bmp + info + [0, 0, 24, 0])
        headers.append(bmp + info + [1, 0, 7, 0])
        // ICO with no entries, an empty first entry, an entry inside its own directory, or a
        // bit depth icons do not have.
        headers.append([0, 0, 1, 0, 0, 0])
        headers.append(icon + [32, 0, 0, 0, 0, 0, 22, 0, 0, 0])
        headers.append(icon + [32, 0, 0x68, 4, 0, 0, 6, 0, 0, 0])
        headers.append([0, 0, 1, 0, 1, 0, 16, 16, 0, 0, 1, 0, 33, 0, 0x68, 4, 0, 0, 22, 0, 0, 0])
        return headers
    }()

    @Test("implausible TIFF, BMP and ICO headers are not images")
    func rejectsImplausibleHeaders() {
        for header in Self.implausibleHeaders {
            #expect(ImageFormat.detect(Self.bytes(header)) == .undefined, "\(header)")
        }
        #expect(ImageFormat.detect(Data([0x49, 0x49, 0x2A, 0x00, 8])) == .undefined)
    }

    @Test("ISO media files with other brands, or cut before their brands, are not images")
    func otherISOMediaBrands() {
        #expect(ImageFormat.detect(Self.ftyp("isom", ["isom", "mp41"])) == .undefined)
        #expect(ImageFormat.detect(Self.ftyp("qt  ", ["qt  "])) == .undefined)
        #expect(ImageFormat.detect(Data([0, 0, 0, 0x18] + Array("ftyp".utf8))) == .undefined)
    }

    @Test("APNG is told from PNG by acTL before IDAT")
    func apng() {
        func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
            let n = UInt32(payload.count)
            return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
                + Array(type.utf8) + payload + [0, 0, 0, 0]
        }
        let ihdr = chunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0])
        let actl = chunk("acTL", [0, 0, 0, 2, 0, 0, 0, 0])
        let idat = chunk("IDAT", [1, 2, 3])
        #expect(ImageFormat.detect(Data(Self.png + ihdr + actl + idat)) == .apng)
        #expect(ImageFormat.detect(Data(Self.png + ihdr + idat + actl)) == .png)
        #expect(ImageFormat.detect(Data(Self.png + ihdr + idat)) == .png)
    }

    @Test("MIME types and extensions map both ways")
    func mimeAndExtension() {
        for format in ImageFormat.allCases where format != .undefined {
            #expect(ImageFormat(mimeType: format.mimeType) == format)
            #expect(ImageFormat(fileExtension: format.fileExtension) == format)
        }
        #expect(ImageFormat(mimeType: "image/JPEG; charset=binary") == .jpeg)
        #expect(ImageFormat(fileExtension: ".JPEG") == .jpeg)
        #expect(ImageFormat(fileExtension: "tif") == .tiff)
        #expect(ImageFormat(fileExtension: "CUR") == .ico)
        #expect(ImageFormat(mimeType: "image/x-ms-bmp") == .bmp)
        #expect(ImageFormat.tiff.mimeType == "image/tiff" && ImageFormat.ico.mimeType == "image/x-icon")
        #expect(ImageFormat(mimeType: "text/html") == .undefined)
        #expect(ImageFormat.jpeg.fileExtension == "jpg")
    }
}

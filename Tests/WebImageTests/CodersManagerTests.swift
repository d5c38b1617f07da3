import Foundation
import Testing
@testable import WebImage
@testable import WebImageCodecs
@testable import WebImageLoading

/// A coder that claims every input and answers with a fixed image, or fails.
private struct ClaimingCoder: ImageCoding {
    let fails: Bool
    func canDecode(_ data: Data) -> Bool { true }
    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        if fails { throw WebImageError(.badImageData, "claiming coder refuses") }
        return Image(bitmap: Bitmap(width: 3, height: 2, fill: .white))
    }
    func canEncode(to format: ImageFormat) -> Bool { format == .jpeg }
    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data { Data("X".utf8) }
}

/// Another coder type, so removal by type can be told apart.
private struct FailingCoder: ImageCoding {
    func canDecode(_ data: Data) -> Bool { true }
    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        throw WebImageError(.badImageData, "failing coder refuses")
    }
    func canEncode(to format: ImageFormat) -> Bool { false }
    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws -> Data { Data() }
}

@Suite("Coders manager priority")
struct CodersManagerTests {
    let jpeg = try! CodersManager.shared.encode(Image(bitmap: TestBitmaps.quadrants()), as: .jpeg, options: .default)

    @Test func builtInCodersDecodeAndEncode() throws {
        let manager = CodersManager()
        #expect(try manager.decode(jpeg, options: .default).pixelSize == PixelSize(width: 64, height: 48))
        #expect(manager.canEncode(to: .webp) && manager.canEncode(to: .gif) && manager.canEncode(to: .apng))
        #expect(manager.canEncode(to: .bmp) && manager.canEncode(to: .ico))
        #expect(manager.canEncode(to: .heic) == false && !manager.canEncode(to: .heif))
    }

    @Test func lastAddedWinsAndThereIsNoFallback() throws {
        let manager = CodersManager()
        manager.addCoder(FailingCoder())
        // The failing coder has the highest priority and claims the JPEG: its error stands.
        #expect { try manager.decode(jpeg, options: .default) } throws: { error in
            (error as? WebImageError)?.message == "failing coder refuses"
        }
        manager.addCoder(ClaimingCoder(fails: false))
        #expect(try manager.decode(jpeg, options: .default).pixelSize == PixelSize(width: 3, height: 2))
        #expect(try manager.encode(Image(bitmap: TestBitmaps.quadrants()), as: .jpeg, options: .default) == Data("X".utf8))
        manager.removeCoder(ClaimingCoder(fails: true)) // removes by type
        manager.removeCoder(FailingCoder())
        #expect(try manager.decode(jpeg, options: .default).pixelSize == PixelSize(width: 64, height: 48))
    }

    @Test func unknownAndUnsupportedData() {
        let manager = CodersManager()
        #expect { try manager.decode(Data(), options: .default) } throws: { ($0 as? WebImageError)?.code == .badImageData }
        #expect { try manager.decode(Data("hello".utf8), options: .default) } throws: { ($0 as? WebImageError)?.code == .badImageData }
        let pdf = Data("%PDF-1.7\n".utf8)
        #expect { try manager.decode(pdf, options: .default) } throws: { ($0 as? WebImageError)?.code == .unsupportedFormat }
    }

    @Test func defaultEncodingFormat() {
        let opaque = Image(bitmap: TestBitmaps.quadrants())
        let alpha = Image(bitmap: TestBitmaps.gradient(width: 8, height: 8, alpha: true))
        let frames = [ImageFrame(bitmap: TestBitmaps.quadrants(), duration: 0.1), ImageFrame(bitmap: TestBitmaps.quadrants(), duration: 0.1)]
        let shared = CodersManager.shared
        #expect(shared.defaultEncodingFormat(for: opaque) == .jpeg)
        #expect(shared.defaultEncodingFormat(for: alpha) == .png)
        #expect(shared.defaultEncodingFormat(for: Image(frames: frames)) == .gif)
        #expect(shared.defaultEncodingFormat(for: Image(bitmap: TestBitmaps.quadrants(), format: .webp)) == .webp)
    }

    /// The rule asks the manager it is called on, not the shared one: without a WebP coder, an
    /// opaque WebP-sourced image is written as JPEG, both by `encode(as: .undefined)` and by a
    /// cache store whose context names that manager.
    @Test func defaultEncodingFormatFollowsThisManagersCoders() throws {
        let manager = CodersManager(coders: [JPEGCoder(), PNGCoder()])
        let webpSourced = Image(bitmap: TestBitmaps.quadrants(), format: .webp)
        #expect(manager.defaultEncodingFormat(for: webpSourced) == .jpeg)
        let encoded = try manager.encode(webpSourced, as: .undefined, options: .default)
        #expect(ImageFormat.detect(encoded) == .jpeg)

        let harness = ImageCacheHarness(); defer { harness.remove() }
        let stored = try harness.cache.encodedData(for: webpSourced, context: WebImageContext(imageCoder: manager))
        #expect(ImageFormat.detect(stored) == .jpeg)
    }
}

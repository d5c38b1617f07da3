import Foundation
import Testing
@testable import WebImageCodecs

/// SVG through librsvg: the intrinsic size rules, rendering at the asked size (a vector is drawn,
/// not scaled), straight alpha, limits, and documents that try to reach outside themselves.
@Suite("SVG coder")
struct SVGCoderTests {
    let coder = SVGCoder()
    static let red = RGBA(r: 255, g: 0, b: 0, a: 255)
    static let blue = RGBA(r: 0, g: 0, b: 255, a: 255)

    static func svg(_ attributes: String, _ body: String) -> Data {
        Data("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" \(attributes)>\(body)</svg>".utf8)
    }

    /// Left half red, right half blue, on a 10×10 viewBox.
    static let halves = svg("viewBox=\"0 0 10 10\"",
                            "<rect width=\"5\" height=\"10\" fill=\"#f00\"/><rect x=\"5\" width=\"5\" height=\"10\" fill=\"#00f\"/>")

    static func close(_ a: RGBA, _ b: RGBA, _ tolerance: Int = 2) -> Bool {
        abs(Int(a.r) - Int(b.r)) <= tolerance && abs(Int(a.g) - Int(b.g)) <= tolerance
            && abs(Int(a.b) - Int(b.b)) <= tolerance && abs(Int(a.a) - Int(b.a)) <= tolerance
    }

    @Test func theIntrinsicSizeIsTheSizeThenTheViewBoxThenADefault() throws {
        let sized = Self.svg("width=\"40\" height=\"20\"", "<rect width=\"40\" height=\"20\" fill=\"red\"/>")
        let image = try coder.decode(sized, options: .default)
        #expect(image.pixelSize == PixelSize(width: 40, height: 20))
        #expect(image.format == .svg)
        #expect(Self.close(image.bitmap.pixel(x: 20, y: 10), Self.red))
        #expect(coder.imageInfo(for: sized) == ImageInfo(format: .svg, pixelSize: PixelSize(width: 40, height: 20)))
        let inches = Self.svg("width=\"1in\" height=\"0.5in\"", "")
        #expect(try coder.decode(inches, options: .default).pixelSize == PixelSize(width: 96, height: 48))
        let viewBox = Self.svg("viewBox=\"0 0 30 15\"", "")
        #expect(try coder.decode(viewBox, options: .default).pixelSize == PixelSize(width: 30, height: 15))
        let neither = Self.svg("", "<circle cx=\"5\" cy=\"5\" r=\"4\"/>")
        #expect(try coder.decode(neither, options: .default).pixelSize == SVGDocument.defaultSize)
    }

    @Test func aThumbnailIsRenderedAtItsSizeWithSharpEdges() throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 100, height: 100))
        let image = try coder.decode(Self.halves, options: options)
        #expect(image.pixelSize == PixelSize(width: 100, height: 100))
        // Drawn at 100 px, the edge between the halves falls between two pixels: no blur.
        #expect(Self.close(image.bitmap.pixel(x: 49, y: 50), Self.red))
        #expect(Self.close(image.bitmap.pixel(x: 50, y: 50), Self.blue))
        // A box of another shape: fitted, or stretched when asked.
        let fitted = try coder.decode(Self.halves, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 60, height: 30)))
        #expect(fitted.pixelSize == PixelSize(width: 30, height: 30))
        let stretched = try coder.decode(Self.halves, options: DecodeOptions(
            thumbnailPixelSize: PixelSize(width: 60, height: 30), preserveAspectRatio: false))
        #expect(stretched.pixelSize == PixelSize(width: 60, height: 30))
        #expect(Self.close(stretched.bitmap.pixel(x: 29, y: 15), Self.red))
        #expect(Self.close(stretched.bitmap.pixel(x: 30, y: 15), Self.blue))
    }

    @Test func translucencyComesOutAsStraightAlpha() throws {
        let data = Self.svg("width=\"4\" height=\"4\"",
                            "<rect width=\"4\" height=\"4\" fill=\"#ff8000\" fill-opacity=\"0.5\"/>")
        let pixel = try coder.decode(data, options: .default).bitmap.pixel(x: 1, y: 1)
        #expect(Self.close(pixel, RGBA(r: 255, g: 128, b: 0, a: 128)), "\(pixel)")
        let empty = try coder.decode(Self.svg("width=\"4\" height=\"4\"", ""), options: .default)
        #expect(empty.bitmap.pixel(x: 2, y: 2) == RGBA(r: 0, g: 0, b: 0, a: 0))
    }

    @Test func aHugeDocumentIsRefusedUnlessAThumbnailIsAsked() throws {
        let huge = Self.svg("width=\"200000\" height=\"200000\"", "<rect width=\"200000\" height=\"200000\" fill=\"red\"/>")
        #expect(throws: WebImageError.self) { try coder.decode(huge, options: .default) }
        do {
            _ = try coder.decode(huge, options: .default)
        } catch let error as WebImageError {
            #expect(error.code == .imageTooLarge)
        }
        let thumbnail = try coder.decode(huge, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 64, height: 64)))
        #expect(thumbnail.pixelSize == PixelSize(width: 64, height: 64))
        #expect(Self.close(thumbnail.bitmap.pixel(x: 32, y: 32), Self.red))
    }

    @Test func brokenDocumentsAreBadImageData() {
        for bytes in ["<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"><rect",
                      "<svg xmlns=\"http://www.w3.org/2000/svg\"><g></svg>",
                      "<html><body>not an image</body></html>"] {
            #expect(throws: WebImageError.self, "\(bytes)") { try coder.decode(Data(bytes.utf8), options: .default) }
        }
    }

    @Test func anEntityExpansionBombIsRefusedQuickly() throws {
        var entities = "<!ENTITY a0 \"lollollollollollollollollollol\">"
        for level in 1...12 {
            let previous = "&a\(level - 1);"
            entities += "<!ENTITY a\(level) \"\(String(repeating: previous, count: 10))\">"
        }
        let bomb = Data("""
            <?xml version="1.0"?>
            <!DOCTYPE svg [\(entities)]>
            <svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>&a12;</text></svg>
            """.utf8)
        #expect(throws: WebImageError.self) { try coder.decode(bomb, options: .default) }
    }

    @Test func aDocumentLoadsNoFileAndNoURL() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("svg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let png = try CodersManager().encode(Image(bitmap: Bitmap(width: 8, height: 8, fill: Self.red)), as: .png,
                                             options: .default)
        let file = directory.appendingPathComponent("red.png")
        try png.write(to: file)
        try await withTestOrigin { origin in
            origin.setRoute("/red.png", .data(Array(png), contentType: "image/png"))
            let data = Self.svg("width=\"16\" height=\"8\"", """
                <image x="0" width="8" height="8" xlink:href="\(file.absoluteString)"/>
                <image x="8" width="8" height="8" href="http://127.0.0.1:\(origin.port)/red.png"/>
                """)
            let image = try coder.decode(data, options: .default)
            #expect(image.bitmap.pixel(x: 4, y: 4).a == 0, "the file was read")
            #expect(image.bitmap.pixel(x: 12, y: 4).a == 0, "the URL was fetched")
            #expect(origin.requestCount("/red.png") == 0)
        }
    }

    @Test func svgIsSniffedAndNotWritten() throws {
        #expect(CodersManager().canDecode(Self.halves))
        #expect(!CodersManager().canEncode(to: .svg))
        #expect(try CodersManager().decode(Self.halves, options: .default).format == .svg)
    }
}

import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// SVG sources are rasterised, never passed through: drawn at the size the result needs.
@Suite("Server: SVG sources")
struct ServerSVGTests {
    @Test func anSVGIsDrawnAtTheResultSizeAndServedAsPNG() async throws {
        let svg = Array(SVGCoderTests.halves)
        try await withTestOrigin { origin in
            origin.setRoute("/logo.svg", .data(svg, contentType: "image/svg+xml"))
            try await withImageServer(loopbackServerConfiguration()) { server in
                let reply = try await server.get("/insecure/rs:fit:64:64/plain/http://127.0.0.1:\(origin.port)/logo.svg")
                #expect(reply.status == 200)
                // Not the source's bytes or type: a raster with the SVG's transparency kept.
                #expect(reply.header("Content-Type") == "image/png")
                #expect(reply.header("Content-Disposition") == "inline; filename=\"logo.png\"")
                let image = try server.decode(reply)
                // The 10-unit document is drawn at 64 px (a vector needs no `enlarge`), edge sharp.
                #expect(image.pixelSize == PixelSize(width: 64, height: 64))
                #expect(SVGCoderTests.close(image.bitmap.pixel(x: 31, y: 32), SVGCoderTests.red))
                #expect(SVGCoderTests.close(image.bitmap.pixel(x: 32, y: 32), SVGCoderTests.blue))
                let jpeg = try await server.get("/insecure/w:20/plain/http://127.0.0.1:\(origin.port)/logo.svg@jpg")
                #expect(jpeg.header("Content-Type") == "image/jpeg")
                #expect(try server.decode(jpeg).pixelSize == PixelSize(width: 20, height: 20))
            }
        }
    }
}

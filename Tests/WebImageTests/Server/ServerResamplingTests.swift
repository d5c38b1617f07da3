import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// `resizing_algorithm` / `ra` and smart gravity, from the URL to the pixels of a PNG result.
@Suite("Server: resizing algorithms and smart crop")
struct ServerResamplingTests {
    private func source(_ origin: TestOrigin, _ path: String) -> String {
        "http://127.0.0.1:\(origin.port)\(path)"
    }

    private func png(_ bitmap: Bitmap) -> [UInt8] {
        Array(PNGFixtures.png(width: bitmap.width, height: bitmap.height, rows: PNGFixtures.rows(of: bitmap)))
    }

    /// 8×8 pixels, each its own colour.
    static let distinct = Bitmap(width: 8, height: 8) { out in
        for i in stride(from: 0, to: out.count, by: 4) {
            let p = i / 4
            out[i] = UInt8(p % 8 * 30); out[i + 1] = UInt8(p / 8 * 30); out[i + 2] = UInt8(p * 3); out[i + 3] = 255
        }
    }

    // MARK: URL

    @Test(arguments: [("ra:lanczos3", ResamplingFilter.lanczos3), ("resizing_algorithm:cubic", .cubic),
                      ("ra:nearest", .nearest), ("ra:linear", .linear), ("resizing_algorithm:lanczos2", .lanczos2)])
    func theAlgorithmsParse(option: String, filter: ResamplingFilter) throws {
        #expect(try urlOptions("rs:fit:300:200/\(option)").resizingAlgorithm == filter)
    }

    @Test func lanczos3IsTheDefaultAndOthersAreInTheCacheKey() throws {
        #expect(ProcessingOptions().resizingAlgorithm == .lanczos3)
        #expect(try urlOptions("w:10/ra:lanczos3").canonicalPath == "w:10")
        #expect(try urlOptions("w:10/ra:cubic").canonicalPath == "ra:cubic/w:10")
    }

    @Test func badAlgorithmsAreRefused() throws {
        for options in ["ra:area", "ra:lanczos", "ra:", "ra:Nearest", "ra:cubic:1"] {
            let error = try #require(try optionFailure(options), "\(options) parsed")
            #expect(error.status == 400, "\(options): \(error)")
            #expect(error.name == "invalid_argument", "\(options): \(error)")
        }
    }

    // MARK: pixels

    @Test func nearestKeepsTheSourcePixelUnderEachCentre() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/d.png", .data(png(Self.distinct), contentType: "image/png"))
            try await withImageServer(loopbackServerConfiguration()) { server in
                let reply = try await server.get("/insecure/rs:force:4:4/ra:nearest/plain/\(source(origin, "/d.png"))@png")
                #expect(reply.status == 200)
                let result = try server.decode(reply).bitmap
                #expect(result.size == PixelSize(width: 4, height: 4))
                for y in 0..<4 {
                    for x in 0..<4 {
                        #expect(result.pixel(x: x, y: y) == Self.distinct.pixel(x: 2 * x + 1, y: 2 * y + 1), "at \(x),\(y)")
                    }
                }
            }
        }
    }

    @Test func theDefaultIsLanczos3AndCubicDiffers() async throws {
        let photo = TestBitmaps.gradient(width: 120, height: 90)
        try await withTestOrigin { origin in
            origin.setRoute("/p.png", .data(png(photo), contentType: "image/png"))
            try await withImageServer(loopbackServerConfiguration()) { server in
                let path = "/plain/\(source(origin, "/p.png"))@png"
                let plain = try server.decode(try await server.get("/insecure/rs:fit:50:50\(path)")).bitmap
                let cubic = try server.decode(try await server.get("/insecure/rs:fit:50:50/ra:cubic\(path)")).bitmap
                let target = PixelSize(width: 50, height: 38)
                #expect(plain == Resampler.resize(photo, to: target, filter: .lanczos3))
                #expect(cubic == Resampler.resize(photo, to: target, filter: .cubic))
            }
        }
    }

    // MARK: smart gravity

    static let object = (x: 320, y: 60, side: 60)
    static let scene = SmartCropTests.scene(width: 400, height: 200, background: RGBA(r: 245, g: 245, b: 240, a: 255),
                                            object: object)

    /// How many of `bitmap`'s pixels are the object's red.
    static func redCount(_ bitmap: Bitmap) -> Int {
        var count = 0
        for y in 0..<bitmap.height {
            for x in 0..<bitmap.width {
                let p = bitmap.pixel(x: x, y: y)
                if p.r > 200 && p.g < 80 && p.b < 80 { count += 1 }
            }
        }
        return count
    }

    @Test func smartFillKeepsAnOffCentreObject() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/s.png", .data(png(Self.scene), contentType: "image/png"))
            try await withImageServer(loopbackServerConfiguration()) { server in
                let path = "/plain/\(source(origin, "/s.png"))@png"
                // 400×200 filled into 200×200: the scaled image is the source, cropped to 200 wide.
                let smart = try server.decode(try await server.get("/insecure/rs:fill:200:200/g:sm\(path)")).bitmap
                let centre = try server.decode(try await server.get("/insecure/rs:fill:200:200\(path)")).bitmap
                #expect(smart.size == PixelSize(width: 200, height: 200))
                let whole = Self.redCount(Self.scene)
                #expect(whole > 1000)
                #expect(Self.redCount(smart) == whole, "the smart crop lost part of the object")
                #expect(Self.redCount(centre) == 0)
                // The crop is a window of the source, pixel for pixel.
                let left = (0...200).first { x in (0..<200).allSatisfy { smart.pixel(x: $0, y: 100) == Self.scene.pixel(x: x + $0, y: 100) } }
                #expect(left != nil && left! + 200 >= Self.object.x + Self.object.side && left! <= Self.object.x)
            }
        }
    }

    @Test func smartCropOptionKeepsAnOffCentreObject() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/s.png", .data(png(Self.scene), contentType: "image/png"))
            try await withImageServer(loopbackServerConfiguration()) { server in
                let reply = try await server.get("/insecure/c:150:150:sm/plain/\(source(origin, "/s.png"))@png")
                #expect(reply.status == 200)
                let cropped = try server.decode(reply).bitmap
                #expect(cropped.size == PixelSize(width: 150, height: 150))
                #expect(Self.redCount(cropped) == Self.redCount(Self.scene))
            }
        }
    }

    @Test func aFocusPointStillPlacesTheCrop() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/s.png", .data(png(Self.scene), contentType: "image/png"))
            try await withImageServer(loopbackServerConfiguration()) { server in
                let reply = try await server.get("/insecure/rs:fill:200:200/g:fp:0.1:0.5/plain/\(source(origin, "/s.png"))@png")
                let result = try server.decode(reply).bitmap
                // Centred on x = 40, clamped to the left edge: the object is not in it.
                for x in stride(from: 0, to: 200, by: 7) {
                    #expect(result.pixel(x: x, y: 90) == Self.scene.pixel(x: x, y: 90))
                }
                #expect(Self.redCount(result) == 0)
            }
        }
    }
}

import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// `GET /info/…` over real HTTP: the source's facts as JSON, its BlurHash and ThumbHash on
/// request, signed like processing URLs and failing with processing's statuses.
@Suite("Server: /info")
struct ServerInfoTests {
    static let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
    static let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
    static let crimson = RGBA(r: 200, g: 30, b: 60)
    let photo: [UInt8] = Array(try! JPEGFixtures.encode(TestBitmaps.gradient(width: 400, height: 300)))

    func png(_ bitmap: Bitmap) throws -> [UInt8] {
        Array(try CodersManager.shared.encode(Image(bitmap: bitmap), as: .png, options: .default))
    }

    func object(_ reply: ServerReply) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: reply.body) as? [String: Any])
    }

    @Test func aSignedInfoRequestDescribesTheSource() async throws {
        let flat = try png(Bitmap(width: 120, height: 80, fill: Self.crimson))
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            origin.setRoute("/flat.png", .data(flat, contentType: "image/png"))
            let configuration = loopbackServerConfiguration { $0.keys = [Self.key]; $0.salts = [Self.salt] }
            try await withImageServer(configuration) { server in
                let signer = try ImageServerSigner(key: Self.key, salt: Self.salt)
                func info(_ url: ImageServerURL) throws -> String { "/info" + (try url.signedPath(with: signer)) }
                let photoURL = ImageServerURL(source: "http://127.0.0.1:\(origin.port)/photo.jpg")

                let reply = try await server.get(try info(photoURL))
                #expect(reply.status == 200)
                #expect(reply.header("Content-Type") == "application/json")
                let facts = try object(reply)
                #expect(facts["width"] as? Int == 400 && facts["height"] as? Int == 300)
                #expect(facts["format"] as? String == "jpeg")
                #expect(facts["frames"] as? Int == 1 && facts["loop_count"] as? Int == 0)
                #expect(facts["duration"] as? Double == 0)
                #expect(facts["bytes"] as? Int == photo.count)
                #expect(facts["orientation"] as? Int == 1)
                #expect(facts["has_alpha"] as? Bool == false)
                #expect(facts["blurhash"] is NSNull && facts["thumbhash"] is NSNull, "not asked for")
                #expect((facts["average_color"] as? String)?.hasPrefix("#") == true)

                // A flat colour: its colours and both hashes decode back to it.
                let flatURL = try ImageServerURL(source: "http://127.0.0.1:\(origin.port)/flat.png")
                    .option("bh", "3", "2").option("th", "1")
                let flatFacts = try object(try await server.get(try info(flatURL)))
                #expect(flatFacts["format"] as? String == "png")
                #expect(flatFacts["dominant_color"] as? String == "#c81e3c")
                #expect(flatFacts["average_color"] as? String == "#c81e3c")
                let blurhash = try #require(flatFacts["blurhash"] as? String)
                #expect(try BlurHash.components(of: blurhash) == (3, 2))
                #expect(try BlurHash.averageColor(of: blurhash) == Self.crimson)
                let thumbhash = try ThumbHash.bytes(base64: try #require(flatFacts["thumbhash"] as? String))
                #expect(try ThumbHash.averageColor(of: thumbhash).isClose(to: Self.crimson, tolerance: 6))
                #expect(abs(try ThumbHash.aspectRatio(of: thumbhash) - 1.4) < 1e-9)

                // Signed with another key, or not at all: refused as processing refuses it.
                #expect(try await server.get("/info" + (try photoURL.signedPath(with: nil))).status == 403)
            }
        }
    }

    @Test func animationsAndAlphaAreDescribed() async throws {
        let frames = (0..<3).map { _ in ImageFrame(bitmap: TestBitmaps.quadrants(width: 16, height: 16), duration: 0.2) }
        let gif = Array(try CodersManager.shared.encode(Image(frames: frames, loopCount: 0), as: .gif, options: .default))
        let alpha = try png(TestBitmaps.gradient(width: 40, height: 30, alpha: true))
        try await withTestOrigin { origin in
            origin.setRoute("/a.gif", .data(gif, contentType: "image/gif"))
            origin.setRoute("/alpha.png", .data(alpha, contentType: "image/png"))
            try await withImageServer(loopbackServerConfiguration()) { server in
                let animated = try object(try await server.get("/info/insecure/plain/http://127.0.0.1:\(origin.port)/a.gif"))
                #expect(animated["format"] as? String == "gif")
                #expect(animated["frames"] as? Int == 3)
                #expect(animated["loop_count"] as? Int == 0)
                #expect(abs((animated["duration"] as? Double ?? 0) - 0.6) < 1e-9)
                let encoded = Data("http://127.0.0.1:\(origin.port)/alpha.png".utf8).base64EncodedString()
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                    .replacingOccurrences(of: "=", with: "")
                let transparent = try object(try await server.get("/info/insecure/th:1/\(encoded)"))
                #expect(transparent["has_alpha"] as? Bool == true)
                #expect(transparent["width"] as? Int == 40 && transparent["height"] as? Int == 30)
                let hash = try ThumbHash.bytes(base64: try #require(transparent["thumbhash"] as? String))
                #expect(try ThumbHash.averageColor(of: hash).a < 255)
            }
        }
    }

    /// A JPEG turned by its EXIF orientation: the size as shown, and the tag.
    @Test func orientationIsToldWithTheShownSize() async throws {
        let turned = Array(JPEGFixtures.withEXIF(Data(photo), orientation: .right))
        try await withTestOrigin { origin in
            origin.setRoute("/turned.jpg", .data(turned, contentType: "image/jpeg"))
            let path = "/insecure/plain/http://127.0.0.1:\(origin.port)/turned.jpg"
            try await withImageServer(loopbackServerConfiguration()) { server in
                let facts = try object(try await server.get("/info" + path))
                #expect(facts["width"] as? Int == 300 && facts["height"] as? Int == 400)
                #expect(facts["orientation"] as? Int == 6)
            }
            // A source over the resolution limit is refused as processing refuses it.
            try await withImageServer(loopbackServerConfiguration { $0.maxSourceResolution = 100_000 }) { server in
                let limited = try await server.get("/info" + path)
                #expect(limited.status == 422)
                #expect(limited.error?.name == (try await server.get(path)).error?.name)
            }
        }
    }

    /// Each fault gets the status the same fault gets on a processing URL.
    @Test func faultsGetProcessingsStatuses() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/text", .data(Array("not an image".utf8), contentType: "image/png"))
            try await withImageServer(loopbackServerConfiguration()) { server in
                let base = "http://127.0.0.1:\(origin.port)"
                for (path, status) in [("/frobnicate:3/plain/\(base)/a.png", 400), ("/plain/\(base)/missing.png", 404),
                                       ("/plain/\(base)/text", 422), ("/plain/ftp://example.com/a.png", 400)] {
                    let info = try await server.get("/info/insecure" + path)
                    let processing = try await server.get("/insecure" + path)
                    #expect(info.status == status, "\(path)")
                    #expect(info.status == processing.status, "\(path)")
                    #expect(info.error?.name == processing.error?.name, "\(path)")
                }
                for option in ["bh:10:3", "bh:4:0", "bh:x", "bh:1:2:3", "th:1:1"] {
                    let reply = try await server.get("/info/insecure/\(option)/plain/\(base)/text")
                    #expect(reply.status == 400, "\(option)")
                }
                // Info options are not processing options.
                #expect(try await server.get("/insecure/bh:4:3/plain/\(base)/text").status == 400)
            }
            // The private-address guard applies as to processing.
            try await withImageServer(ServerConfiguration()) { server in
                let path = "/insecure/plain/http://127.0.0.1:\(origin.port)/text"
                let info = try await server.get("/info" + path)
                #expect(info.status == 403)
                #expect(info.status == (try await server.get(path)).status)
            }
        }
    }
}

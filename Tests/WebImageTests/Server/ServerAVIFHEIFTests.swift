import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// AVIF as a result format (asked for by the URL, or negotiated from `Accept` with
/// `autoAVIF`) and HEIC as a source, which is served in a format every browser shows.
@Suite("Server: AVIF results and HEIC sources")
struct ServerAVIFHEIFTests {
    let photo: [UInt8] = Array(try! JPEGFixtures.encode(TestBitmaps.gradient(width: 400, height: 300)))

    @Test func autoAVIFComesBeforeWebPAndSaysVary() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            origin.setRoute("/anim.gif", .data(try ServerAnimationTests.animation(), contentType: "image/gif"))
            let configuration = loopbackServerConfiguration {
                $0.autoAVIF = true; $0.autoWebP = true; $0.maxAnimationFrames = 10
            }
            try await withImageServer(configuration) { server in
                let path = "/insecure/w:80/plain/http://127.0.0.1:\(origin.port)/photo.jpg"
                let avif = try await server.get(path, headers: [("Accept", "image/avif,image/webp,*/*")])
                #expect(avif.status == 200)
                #expect(avif.header("Content-Type") == "image/avif")
                #expect(avif.header("Vary") == "Accept")
                #expect(ImageFormat.detect(Data(avif.body)) == .avif)
                #expect(try server.decode(avif).pixelSize == PixelSize(width: 80, height: 60))

                let webp = try await server.get(path, headers: [("Accept", "image/webp,*/*")])
                #expect(webp.header("Content-Type") == "image/webp")
                // The URL's format wins over Accept.
                let named = try await server.get(path + "@jpg", headers: [("Accept", "image/avif")])
                #expect(named.header("Content-Type") == "image/jpeg")

                // An animated result is negotiated into an AVIF sequence, never a still.
                let gifPath = "/insecure/w:50/plain/http://127.0.0.1:\(origin.port)/anim.gif"
                let sequence = try await server.get(gifPath, headers: [("Accept", "image/avif")])
                #expect(sequence.header("Content-Type") == "image/avif")
                #expect(AVIFCoder().imageInfo(for: sequence.body)?.frameCount == 3)
            }
        }
    }

    @Test func aURLAskingForAVIFGetsAVIFWithoutNegotiation() async throws {
        try await withTestOrigin { origin in
            origin.setRoute("/photo.jpg", .data(photo, contentType: "image/jpeg"))
            try await withImageServer(loopbackServerConfiguration()) { server in
                let reply = try await server.get("/insecure/rs:fill:64:64/f:avif/plain/http://127.0.0.1:\(origin.port)/photo.jpg")
                #expect(reply.status == 200)
                #expect(reply.header("Content-Type") == "image/avif")
                #expect(reply.header("Vary") == nil)
                #expect(reply.header("Content-Disposition") == "inline; filename=\"photo.avif\"")
                let image = try server.decode(reply)
                #expect(image.format == .avif)
                #expect(image.pixelSize == PixelSize(width: 64, height: 64))
            }
        }
    }

    @Test func aHEICSourceIsServedAsJPEGUnlessAFormatIsNamed() async throws {
        let heic = Array(try CodecFixtures.data("heif/still.heic"))
        let source = try CodersManager().decode(Data(heic), options: .default)
        try await withTestOrigin { origin in
            origin.setRoute("/photo.heic", .data(heic, contentType: "image/heic"))
            try await withImageServer(loopbackServerConfiguration()) { server in
                let base = "plain/http://127.0.0.1:\(origin.port)/photo.heic"
                let reply = try await server.get("/insecure/w:32/\(base)")
                #expect(reply.status == 200)
                #expect(reply.header("Content-Type") == "image/jpeg")
                let image = try server.decode(reply)
                let height = (source.pixelSize.height * 32 + source.pixelSize.width / 2) / source.pixelSize.width
                #expect(image.pixelSize.width == 32)
                #expect(abs(image.pixelSize.height - height) <= 1)
                let png = try await server.get("/insecure/w:32/\(base)@png")
                #expect(png.header("Content-Type") == "image/png")
            }
        }
    }
}

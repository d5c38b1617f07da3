import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// Animated sources: the first frame by default, every frame (processed alike, timing kept) when
/// `maxAnimationFrames` allows them, and a source with more frames than that refused.
@Suite("Server: animations")
struct ServerAnimationTests {
    static let colours = [RGBA(r: 255, g: 0, b: 0, a: 255), RGBA(r: 0, g: 255, b: 0, a: 255),
                          RGBA(r: 0, g: 0, b: 255, a: 255)]

    /// A 3-frame 200×100 GIF: red, green, blue, 0.1 s each, looping forever.
    static func animation() throws -> [UInt8] {
        let frames = colours.map { ImageFrame(bitmap: PNGFixtures.solid(200, 100, $0), duration: 0.1) }
        return Array(try CodersManager().encode(Image(frames: frames, loopCount: 0, format: .gif), as: .gif,
                                                options: .default))
    }

    private func serve(_ path: String, maxFrames: Int) async throws -> ServerReply {
        let gif = try Self.animation()
        return try await withTestOrigin { origin in
            origin.setRoute("/anim.gif", .data(gif, contentType: "image/gif"))
            let configuration = loopbackServerConfiguration { $0.maxAnimationFrames = maxFrames }
            return try await withImageServer(configuration) { server in
                try await server.get("/insecure/\(path)/plain/http://127.0.0.1:\(origin.port)/anim.gif")
            }
        }
    }

    @Test func byDefaultOnlyTheFirstFrameIsServed() async throws {
        let reply = try await serve("w:50", maxFrames: 1)
        #expect(reply.status == 200)
        #expect(reply.header("Content-Type") == "image/gif")
        let image = try CodersManager().decode(reply.body, options: .default)
        #expect(image.frames.count == 1)
        #expect(image.pixelSize == PixelSize(width: 50, height: 25))
        #expect(image.bitmap.pixel(x: 25, y: 12) == Self.colours[0])
    }

    @Test func everyFrameIsProcessedAlikeWhenAllowed() async throws {
        for ext in ["gif", "webp"] {
            let reply = try await serve("rs:fill:40:40/fl:1/f:\(ext)", maxFrames: 10)
            #expect(reply.status == 200)
            let image = try CodersManager().decode(reply.body, options: .default)
            #expect(image.frames.count == 3, "\(ext)")
            for (frame, colour) in zip(image.frames, Self.colours) {
                #expect(frame.bitmap.width == 40 && frame.bitmap.height == 40, "\(ext)")
                #expect(abs(frame.duration - 0.1) < 0.011, "\(ext)")
                let pixel = frame.bitmap.pixel(x: 20, y: 20)
                #expect(abs(Int(pixel.r) - Int(colour.r)) < 8 && abs(Int(pixel.g) - Int(colour.g)) < 8
                        && abs(Int(pixel.b) - Int(colour.b)) < 8, "\(ext): \(pixel) for \(colour)")
            }
        }
    }

    @Test func aJPEGOfAnAnimationIsItsFirstFrame() async throws {
        let reply = try await serve("w:50/f:jpg", maxFrames: 10)
        #expect(reply.status == 200)
        let image = try CodersManager().decode(reply.body, options: .default)
        #expect(image.format == .jpeg)
        #expect(image.frames.count == 1)
    }

    @Test func anAnimationWithMoreFramesThanTheLimitIsRefused() async throws {
        let reply = try await serve("w:50", maxFrames: 2)
        #expect(reply.status == 422)
        #expect(reply.error?.name == "source_over_limits")
    }
}

import Foundation
import Testing
@testable import WebImage
@testable import WebImageServer

/// Animated sources (GIF, WebP, APNG) served as AVIF image sequences when the URL asks for AVIF
/// or `autoAVIF` negotiates it and the server keeps their frames; still results stay stills and
/// the frame limits still refuse.
@Suite("Server: animated AVIF results")
struct ServerAnimatedAVIFTests {
    static let colours = ServerAnimationTests.colours
    /// Distinct delays, each one a GIF can hold (whole centiseconds).
    static let durations = [0.1, 0.2, 0.05]

    static func frames(width: Int = 120, height: Int = 80) -> [ImageFrame] {
        zip(colours, durations).map { ImageFrame(bitmap: PNGFixtures.solid(width, height, $0), duration: $1) }
    }

    static func encoded(as format: ImageFormat) throws -> [UInt8] {
        Array(try CodersManager().encode(Image(frames: frames(), loopCount: 0, format: format), as: format,
                                         options: EncodeOptions(lossless: format == .webp)))
    }

    /// Serves `sources` (path → bytes and type) to a server with `configuration` and GETs `path`.
    private func serve(_ sources: [String: ([UInt8], String)], _ path: String, accept: String? = nil,
                       configuration: ServerConfiguration) async throws -> ServerReply {
        try await withTestOrigin { origin in
            for (route, (bytes, type)) in sources { origin.setRoute(route, .data(bytes, contentType: type)) }
            return try await withImageServer(configuration) { server in
                try await server.get("/insecure/\(path.replacingOccurrences(of: "ORIGIN", with: "http://127.0.0.1:\(origin.port)"))",
                                     headers: accept.map { [("Accept", $0)] } ?? [])
            }
        }
    }

    /// Checks `reply` is an AVIF sequence of the three frames at `size`, delays kept.
    private func expectSequence(_ reply: ServerReply, size: PixelSize, _ label: String) throws {
        #expect(reply.status == 200, "\(label): \(String(decoding: reply.body.prefix(300), as: UTF8.self))")
        #expect(reply.header("Content-Type") == "image/avif", "\(label)")
        let image = try AVIFCoder().decode(reply.body, options: .default)
        #expect(image.format == .avif && image.frameCount == 3, "\(label)")
        #expect((0..<image.frameCount).map(image.frameDuration(at:)) == Self.durations, "\(label)")
        #expect(image.pixelSize == size, "\(label)")
        for index in 0..<min(3, image.frameCount) {
            let pixel = try image.frame(at: index).bitmap.pixel(x: size.width / 2, y: size.height / 2)
            #expect(AVIFAnimationEncodingTests.isClose(pixel, Self.colours[index]),
                    "\(label) frame \(index): \(pixel) for \(Self.colours[index])")
        }
    }

    private let keepsFrames = loopbackServerConfiguration { $0.maxAnimationFrames = 10 }

    @Test func anAnimatedGIFAskedForAsAVIFIsASequence() async throws {
        let gif = try Self.encoded(as: .gif)
        for path in ["w:60/plain/ORIGIN/anim.gif@avif", "rs:fill:40:40/f:avif/plain/ORIGIN/anim.gif"] {
            let reply = try await serve(["/anim.gif": (gif, "image/gif")], path, configuration: keepsFrames)
            try expectSequence(reply, size: path.hasPrefix("w:60") ? PixelSize(width: 60, height: 40) : PixelSize(width: 40, height: 40), path)
        }
    }

    @Test func animatedWebPAndAPNGSourcesBecomeSequences() async throws {
        let sources = ["/anim.webp": (try Self.encoded(as: .webp), "image/webp"),
                       "/anim.png": (try Self.encoded(as: .png), "image/png")]
        for name in ["anim.webp", "anim.png"] {
            let reply = try await serve(sources, "w:60/plain/ORIGIN/\(name)@avif", configuration: keepsFrames)
            try expectSequence(reply, size: PixelSize(width: 60, height: 40), name)
        }
    }

    @Test func autoAVIFServesAnAnimationAsASequenceWhenAccepted() async throws {
        let gif = try Self.encoded(as: .gif)
        let configuration = loopbackServerConfiguration {
            $0.maxAnimationFrames = 10; $0.autoAVIF = true; $0.autoWebP = true
        }
        let avif = try await serve(["/anim.gif": (gif, "image/gif")], "w:60/plain/ORIGIN/anim.gif",
                                   accept: "image/avif,image/webp,*/*", configuration: configuration)
        try expectSequence(avif, size: PixelSize(width: 60, height: 40), "Accept avif")
        #expect(avif.header("Vary") == "Accept")
        // Without AVIF in Accept, WebP (animated) as before; without either, the source's GIF.
        let webp = try await serve(["/anim.gif": (gif, "image/gif")], "w:60/plain/ORIGIN/anim.gif",
                                   accept: "image/webp,*/*", configuration: configuration)
        #expect(webp.header("Content-Type") == "image/webp")
        #expect(try CodersManager().decode(webp.body, options: .default).frameCount == 3)
        let plain = try await serve(["/anim.gif": (gif, "image/gif")], "w:60/plain/ORIGIN/anim.gif",
                                    accept: "*/*", configuration: configuration)
        #expect(plain.header("Content-Type") == "image/gif")
    }

    /// `format:best` encodes an animation once: as an AVIF sequence when `Accept` names AVIF, as
    /// an animated WebP when it names only WebP.
    @Test func bestServesAnAnimationAsASequenceWhenAVIFIsAccepted() async throws {
        let gif = try Self.encoded(as: .gif)
        let avif = try await serve(["/anim.gif": (gif, "image/gif")], "w:60/f:best/plain/ORIGIN/anim.gif",
                                   accept: "image/avif,image/webp,*/*", configuration: keepsFrames)
        try expectSequence(avif, size: PixelSize(width: 60, height: 40), "best with AVIF")
        let webp = try await serve(["/anim.gif": (gif, "image/gif")], "w:60/f:best/plain/ORIGIN/anim.gif",
                                   accept: "image/webp,*/*", configuration: keepsFrames)
        #expect(webp.header("Content-Type") == "image/webp")
        let image = try CodersManager().decode(webp.body, options: .default)
        #expect(image.frameCount == 3 && image.pixelSize == PixelSize(width: 60, height: 40))
    }

    @Test func theFrameLimitStillRefusesAnAVIFResult() async throws {
        let gif = try Self.encoded(as: .gif)
        let configuration = loopbackServerConfiguration { $0.maxAnimationFrames = 2; $0.autoAVIF = true }
        let named = try await serve(["/anim.gif": (gif, "image/gif")], "w:60/plain/ORIGIN/anim.gif@avif",
                                    configuration: configuration)
        #expect(named.status == 422)
        #expect(named.error?.name == "source_over_limits")
        let negotiated = try await serve(["/anim.gif": (gif, "image/gif")], "w:60/plain/ORIGIN/anim.gif",
                                         accept: "image/avif", configuration: configuration)
        #expect(negotiated.status == 422)
    }

    @Test func theFramesTimesPixelsLimitRefusesAnAVIFResult() async throws {
        // 3 frames of 120×80 (9,600 pixels each) against a 20,000 pixel source limit.
        let gif = try Self.encoded(as: .gif)
        let configuration = loopbackServerConfiguration { $0.maxAnimationFrames = 10; $0.maxSourceResolution = 20_000 }
        let reply = try await serve(["/anim.gif": (gif, "image/gif")], "w:60/plain/ORIGIN/anim.gif@avif",
                                    configuration: configuration)
        #expect(reply.status == 422)
        #expect(reply.error?.message.contains("megapixels of work") == true, "\(String(describing: reply.error))")
    }

    @Test func stillResultsStayStillAVIFs() async throws {
        let gif = try Self.encoded(as: .gif)
        let photo = Array(try JPEGFixtures.encode(TestBitmaps.gradient(width: 120, height: 80)))
        let sources = ["/anim.gif": (gif, "image/gif"), "/photo.jpg": (photo, "image/jpeg")]
        // A first-frame-only server (the default) answers the first frame of an animation.
        let firstFrame = try await serve(sources, "w:60/plain/ORIGIN/anim.gif@avif", configuration: loopbackServerConfiguration())
        #expect(firstFrame.header("Content-Type") == "image/avif")
        let first = try AVIFCoder().decode(firstFrame.body, options: .default)
        #expect(!first.isAnimated && first.pixelSize == PixelSize(width: 60, height: 40))
        #expect(AVIFAnimationEncodingTests.isClose(first.bitmap.pixel(x: 30, y: 20), Self.colours[0]))
        #expect(AVIFCoder().imageInfo(for: firstFrame.body)?.frameCount == 1)
        // A still source on a server that keeps frames.
        let still = try await serve(sources, "w:60/plain/ORIGIN/photo.jpg@avif", configuration: keepsFrames)
        #expect(still.header("Content-Type") == "image/avif")
        #expect(AVIFCoder().imageInfo(for: still.body)?.frameCount == 1)
    }
}

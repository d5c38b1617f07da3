import ArgumentParser
import Foundation
import WebImage

extension AnimatedImagePlaybackMode: ExpressibleByArgument {}

/// `webimage animate FILE|URL`: plays an image through ``AnimatedImagePlayer`` and reports what
/// it showed, optionally writing every shown frame as PNG.
struct AnimateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "animate",
        abstract: "Play an animated image through the player and report the frames shown.",
        discussion: """
            Frames play as fast as they decode (each frame's time is kept, so nothing is dropped) \
            unless --realtime plays them on the wall clock, where frames whose time passes before \
            they are decoded are dropped. The report: frames in the image, frames shown and \
            dropped, loops played, frame decodes (the first frame included), the most bytes of \
            decoded frames held besides the first (all of them for an image decoded up front) \
            and the time taken.
            Exit status: 0 when every frame played, 1 when the image could not be loaded or a \
            frame could not be decoded or written, 2 for usage errors.
            """
    )

    @Argument(help: "An image file, or an http(s), file: or data: URL.")
    var source: String

    @Option(help: "Loops to play.")
    var loops = 1

    @Option(help: "Playback rate: 2 plays twice as fast, 0.5 half as fast.")
    var rate = 1.0

    @Option(help: "Frame order.")
    var mode: AnimatedImagePlaybackMode = .normal

    @Option(name: .customLong("max-buffer"),
            help: "Bytes of decoded frames to keep ahead of the one shown; 0 takes a fifth of the memory the process may use.")
    var maxBuffer = 0

    @Flag(help: "Play on the wall clock instead of as fast as frames decode.")
    var realtime = false

    @Option(name: .customLong("out-dir"), help: "Write each shown frame into DIR as frame-00001.png, frame-00002.png, …")
    var outDir: String?

    @Flag(help: "Print the report as one JSON object.")
    var json = false

    func validate() throws {
        if loops < 1 { throw ValidationError("Bad --loops '\(loops)': expected a whole number ≥ 1.") }
        if !(rate.isFinite && rate > 0) { throw ValidationError("Bad --rate '\(rate)': expected a positive number.") }
        if maxBuffer < 0 { throw ValidationError("Bad --max-buffer '\(maxBuffer)': expected a number of bytes ≥ 0.") }
    }

    func run() async throws {
        if let outDir {
            do {
                try FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
            } catch {
                throw ValidationError("Cannot create --out-dir '\(outDir)': \(error.localizedDescription)")
            }
        }
        let start = ContinuousClock.now
        var image: Image
        do {
            image = try await AnimateInput.load(source)
        } catch {
            report(error: error)
            throw ExitCode(1)
        }
        let loadMs = (ContinuousClock.now - start).milliseconds
        let failed = await play(image, start: start, loadMs: loadMs)
        await Self.waitUntilReleased(&image)
        if failed { throw ExitCode(1) }
    }

    /// Plays `image` as the options say and prints the report; true when a frame could not be
    /// decoded or written.
    private func play(_ image: Image, start: ContinuousClock.Instant, loadMs: Double) async -> Bool {
        let player = realtime
            ? AnimatedImagePlayer(image: image, clock: ContinuousClock())
            : AnimatedImagePlayer(image: image, clock: InstantClock())
        let recorder = AnimateRecorder(image: image, outDir: outDir)
        player.totalLoopCount = loops
        player.playbackRate = rate
        player.playbackMode = mode
        player.maxBufferSize = maxBuffer
        player.frameHandler = { _, frame in recorder.frameShown(frame) }
        player.errorHandler = { error in recorder.record(error) }
        player.start()
        await player.waitUntilEnded()
        let ms = (ContinuousClock.now - start).milliseconds
        print(reportLine(player: player, image: image, recorder: recorder, ms: ms, loadMs: loadMs))
        return recorder.error != nil
    }

    /// Waits (at most a second) until nothing but the caller holds `image`: the player's task and
    /// decode queue let go of it just after playback ends, and the process exits with no frame
    /// decode still running.
    private static func waitUntilReleased(_ image: inout Image) async {
        let deadline = ContinuousClock.now + .seconds(1)
        while !isKnownUniquelyReferenced(&image), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    /// The report of a run: JSON with --json, else one line of text. `ms` is the whole run,
    /// `loadMs` its first part: reading the input, its header and the first frame.
    private func reportLine(player: AnimatedImagePlayer, image: Image, recorder: AnimateRecorder, ms: Double,
                            loadMs: Double) -> String {
        // A lazily decoded animation counts its poster and each frame decode; an image decoded up
        // front decoded every frame, and held them all.
        let decoded = image.animation.map { $0.decodeCount + 1 } ?? image.frameCount
        let peak = image.animation == nil ? (image.frameCount - 1) * image.bitmap.byteCount : recorder.peakBufferBytes
        if json {
            var line = JSONLine()
            line.add("frames", image.frameCount)
            line.add("shown", player.shownFrameCount)
            line.add("dropped", player.droppedFrameCount)
            line.add("loops", player.currentLoopCount)
            line.add("decoded", decoded)
            line.add("peakBufferBytes", peak)
            line.add("ms", ms)
            line.add("loadMs", loadMs)
            if let error = recorder.error { line.addError(error) }
            return line.text
        }
        var text = "\(source): \(image.frameCount) frame(s), shown \(player.shownFrameCount), "
            + "dropped \(player.droppedFrameCount), loops \(player.currentLoopCount), decoded \(decoded), "
            + "peak buffer \(peak) bytes, \(String(format: "%.1f", ms)) ms (\(String(format: "%.1f", loadMs)) loading)"
        if let error = recorder.error { text += "; stopped: \(error)" }
        return text
    }

    /// Reports an image that could not be loaded: a JSON line with --json, else a line on stderr.
    private func report(error: any Error) {
        if json {
            var line = JSONLine()
            line.add("source", source)
            line.addError(error)
            print(line.text)
        } else {
            FileHandle.standardError.write(Data("\(source): \(error)\n".utf8))
        }
    }
}

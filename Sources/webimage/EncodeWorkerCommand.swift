import ArgumentParser
import Foundation
import WebImage

/// `encode-worker`: the child side of ``EncoderProcess`` (not for people; `webimage serve` starts
/// it to encode a large AVIF result in a process it can kill).
struct EncodeWorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: EncoderProcess.workerCommand,
        abstract: "Encode raw RGBA from standard input for webimage serve.",
        shouldDisplay: false)

    @Argument(parsing: .captureForPassthrough)
    var arguments: [String] = []

    func run() throws {
        let status = EncoderProcess.runWorker(arguments)
        if status != 0 { throw ExitCode(status) }
    }
}

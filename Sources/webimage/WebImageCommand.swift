import ArgumentParser
import Foundation
import WebImage

@main
struct WebImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webimage",
        abstract: "Download, cache, decode and transform images.",
        version: WebImageVersion.string,
        subcommands: [GetCommand.self, PrefetchCommand.self, CacheCommand.self, DecodeCommand.self,
                      AnimateCommand.self, DemoCommand.self, BenchCommand.self, BenchNetworkCommand.self, DecodeBenchCommand.self,
                      ServeCommand.self, URLCommand.self, PurgeCommand.self, SharedCacheBenchCommand.self, StoreBenchCommand.self, EncodeWorkerCommand.self]
    )

    /// The exit status of a usage error: 2, as for most Unix tools (ArgumentParser's own is 64).
    static let usageErrorStatus: Int32 = 2

    /// Parses and runs the command like ArgumentParser's `main`, except that usage errors
    /// (unknown flags, bad values, failed validation) exit with status 2 instead of 64.
    static func main() async {
        do {
            var command = try await asyncParseAsRoot(nil)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                let message = fullMessage(for: error)
                FileHandle.standardError.write(Data((message.hasSuffix("\n") ? message : message + "\n").utf8))
                Foundation.exit(usageErrorStatus)
            }
            exit(withError: error)
        }
    }
}

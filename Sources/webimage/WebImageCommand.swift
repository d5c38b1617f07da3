import ArgumentParser
import WebImage

@main
struct WebImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webimage",
        abstract: "Download, cache, decode and transform images.",
        version: WebImageVersion.string,
        subcommands: [DecodeCommand.self, BenchCommand.self, DecodeBenchCommand.self, DemoCommand.self,
                      DiskCacheWorkerCommand.self]
    )
}

import ArgumentParser

/// `webimage demo`: the offline end-to-end demo (arrives with the CLI issue).
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the offline demo (not yet available)."
    )

    func run() throws {
        print("webimage demo: not yet — the offline demo arrives with the cache, downloader and manager.")
        print("Try: webimage decode FILE... --json")
    }
}

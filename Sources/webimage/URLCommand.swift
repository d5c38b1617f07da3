import ArgumentParser
import Foundation
import WebImage

/// `webimage url [--key K --salt S] [--signature-size N] OPTION... SOURCE`: prints a signed
/// image-server URL, a shell user's signer.
struct URLCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "url",
        abstract: "Print an image-server (imgproxy-format) URL for a source, signed when given a key.",
        discussion: """
        OPTIONs are processing options as URLs write them (rs:fit:300:300, q:80, pr:thumb); the last \
        argument is the source URL. Without --key the signature segment is "insecure".
        Example: webimage url --key 943b… --salt 520f… --base https://img.example.com rs:fit:300:300 \
        https://example.com/cat.jpg
        """
    )

    @Option(help: "Hex HMAC key (as given to the server's --key).")
    var key: String?
    @Option(help: "Hex salt, with --key.")
    var salt: String?
    @Option(help: "Bytes of the HMAC kept in the signature (1–32), as the server is configured.")
    var signatureSize = 32
    @Flag(help: "Write the source base64-encoded instead of plain.")
    var base64 = false
    @Option(help: "Output format as the URL's extension (webp, avif, png, …).")
    var `extension`: String?
    @Option(help: "The server's address, prefixed to the path (e.g. https://img.example.com).")
    var base: String?
    @Argument(help: "Processing options, then the source URL.")
    var arguments: [String]

    func validate() throws {
        guard (key == nil) == (salt == nil) else { throw ValidationError("--key and --salt go together.") }
        guard (1...32).contains(signatureSize) else { throw ValidationError("--signature-size takes 1–32.") }
        guard !arguments.isEmpty else { throw ValidationError("Give the source URL as the last argument.") }
        if let base, URL(string: base)?.scheme == nil {
            throw ValidationError("--base takes an absolute URL such as https://img.example.com, got '\(base)'.")
        }
    }

    func run() throws {
        do {
            let signer = try key.map { try ImageServerSigner(key: $0, salt: salt ?? "", signatureSize: signatureSize) }
            var url = ImageServerURL(source: arguments.last!, sourceEncoding: base64 ? .base64(chunkLength: nil) : .plain,
                                     fileExtension: `extension`)
            for text in arguments.dropLast() {
                let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
                guard parts.count >= 2 else {
                    throw WebImageError(.invalidURL, "Option \"\(text)\" needs a \":\" (name:argument…).")
                }
                url = try url.option(ImageServerURL.Option(parts[0], Array(parts.dropFirst())))
            }
            if let base, let baseURL = URL(string: base) {
                print(try url.url(base: baseURL, signer: signer).absoluteString)
            } else {
                print(try url.signedPath(with: signer))
            }
        } catch let error as WebImageError {
            FileHandle.standardError.write(Data("webimage url: \(error.message)\n".utf8))
            throw ExitCode(WebImageCommand.usageErrorStatus)
        }
    }
}

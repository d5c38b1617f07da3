import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore
import WebImageServer

/// `webimage purge SOURCE`: asks a `webimage serve` to drop a source and every result made from
/// it, on that instance and in the shared tier, with a request signed like image URLs.
struct PurgeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge",
        abstract: "Drop a source and all its results from a webimage server (and its shared cache).",
        discussion: """
        Sends POST /purge/SIGNATURE/plain/SOURCE to the server, signed with the same key and salt \
        as image URLs (WEBIMAGE_KEY and WEBIMAGE_SALT are read too). Example:
          webimage purge https://example.com/a.jpg --server http://127.0.0.1:8080 --key 0a1b… --salt 2c3d…
        """)

    @Argument(help: "The source URL to purge, as image URLs name it (http(s)://, local:///, s3://).")
    var source: String
    @Option(help: "The server's address.")
    var server = Env.string("SERVER") ?? "http://127.0.0.1:8080"
    @Option(help: "Hex HMAC key, the server's first --key (env WEBIMAGE_KEY).")
    var key: String?
    @Option(help: "Hex salt paired with --key (env WEBIMAGE_SALT).")
    var salt: String?
    @Option(help: "Bytes of the HMAC kept in the signature (1–32), as the server's --signature-size.")
    var signatureSize = Env.int("SIGNATURE_SIZE") ?? 32
    @Option(help: "Seconds to wait for the answer.")
    var timeout = 30

    func validate() throws {
        guard signingKey != nil, signingSalt != nil else {
            throw ValidationError("Purge requests are signed: give --key and --salt (or WEBIMAGE_KEY and WEBIMAGE_SALT).")
        }
        _ = try purgePath()
        guard let url = URL(string: server), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            throw ValidationError("--server takes an http(s) URL, got '\(server)'.")
        }
        guard (1...3600).contains(timeout) else { throw ValidationError("--timeout takes 1–3600 seconds.") }
    }

    /// `/purge/SIGNATURE/plain/SOURCE`, the source escaped so the server reads it back as given.
    func purgePath() throws -> String {
        guard !source.isEmpty else { throw ValidationError("The source URL is empty.") }
        let signer: URLSigner
        do {
            signer = try URLSigner(keys: [signingKey ?? ""], salts: [signingSalt ?? ""], signatureSize: signatureSize)
        } catch {
            throw ValidationError("\(error.message)")
        }
        return "/purge" + signer.signedPath("/plain/" + Self.escaped(source))
    }

    /// `source` with every character a plain source cannot carry as itself percent-encoded: `%`,
    /// `@` (the extension marker), `?` and `#` (the query and fragment), spaces and non-ASCII.
    static func escaped(_ source: String) -> String {
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "-._~:/!$&'()*+,;=")
        return source.addingPercentEncoding(withAllowedCharacters: allowed) ?? source
    }

    /// `--key`, else the first of `WEBIMAGE_KEY`; `--salt`, else the first of `WEBIMAGE_SALT`.
    var signingKey: String? { key ?? Env.list("KEY").first }
    var signingSalt: String? { salt ?? Env.list("SALT").first }

    func run() async throws {
        let base = server.hasSuffix("/") ? String(server.dropLast()) : server
        var request = HTTPClientRequest(url: base + (try purgePath()))
        request.method = .POST
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(Int64(timeout)))
        let body = try await response.body.collect(upTo: 1 << 20)
        let text = String(buffer: body)
        guard response.status.code == 200 else {
            FileHandle.standardError.write(Data("webimage purge: the server answered \(response.status.code): \(text)\n".utf8))
            throw ExitCode(1)
        }
        print(text)
    }
}

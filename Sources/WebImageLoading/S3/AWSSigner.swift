import WebImageCodecs
import Crypto
import Foundation
import Glibc

/// AWS Signature Version 4 for one request, in the `Authorization` header (HMAC-SHA256).
///
/// The canonical request is built from the URL as it is sent: each path segment percent-decoded
/// and encoded again with only `A–Z a–z 0–9 - . _ ~` left as they are (so `%2F` inside a segment
/// stays one segment), the query's pairs encoded the same way and sorted by name then value, the
/// headers in lowercase with their values trimmed and inner runs of spaces made one, sorted by
/// name, and the payload's SHA-256 in hex. For services other than S3 the path is also
/// normalised (empty and `.` segments dropped, `..` resolved), as AWS's generic signers do;
/// S3 signs the object key exactly.
public struct AWSSigner: Sendable {
    /// The hex SHA-256 of an empty payload, which a GET signs.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// The hex SHA-256 of `payload`, as a request's payload hash.
    public static func payloadHash(_ payload: Data) -> String { hex(SHA256.hash(data: payload)) }

    /// What it signs with.
    public var credentials: AWSCredentials
    /// The region in the credential scope (`us-east-1`).
    public var region: String
    /// The service in the credential scope (`s3`).
    public var service: String

    /// A signer for `service` in `region`.
    public init(credentials: AWSCredentials, region: String, service: String) {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// Whether the path is normalised before it is signed: for every service but S3.
    var normalizesPath: Bool { service != "s3" }

    /// `headers` (which may hold the caller's own headers to sign) with `Host` (from `url` when
    /// missing), `X-Amz-Date`, `X-Amz-Security-Token` (with a session token) and `Authorization`
    /// added: every header in the result but `Authorization` is signed. `payloadHash` is the hex
    /// SHA-256 of the body (or `UNSIGNED-PAYLOAD`); S3 also wants it sent as
    /// `x-amz-content-sha256`, which the caller adds to `headers`.
    public func signed(method: String, url: URL, headers: [HTTPHeaderField] = [],
                       payloadHash: String = AWSSigner.emptyPayloadHash, date: Date) -> [HTTPHeaderField] {
        let stamp = Self.timestamp(date)
        var headers = headers
        if headers[header: "Host"] == nil { headers.append(HTTPHeaderField(name: "Host", value: Self.hostHeader(of: url))) }
        headers.set("X-Amz-Date", stamp)
        if let token = credentials.sessionToken { headers.set("X-Amz-Security-Token", token) }
        let canonical = canonicalRequest(method: method, url: url, headers: headers, payloadHash: payloadHash)
        let scope = "\(stamp.prefix(8))/\(region)/\(service)/aws4_request"
        let signature = Self.hex(HMAC<SHA256>.authenticationCode(
            for: Data(stringToSign(canonical: canonical.text, timestamp: stamp).utf8),
            using: signingKey(day: String(stamp.prefix(8)))))
        headers.append(HTTPHeaderField(name: "Authorization",
            value: "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), "
                + "SignedHeaders=\(canonical.signedHeaders), Signature=\(signature)"))
        return headers
    }

    /// The canonical request and its signed-header list.
    func canonicalRequest(method: String, url: URL, headers: [HTTPHeaderField],
                          payloadHash: String) -> (text: String, signedHeaders: String) {
        var byName: [String: [String]] = [:]
        for field in headers {
            byName[field.name.lowercased(), default: []].append(Self.trimmed(field.value))
        }
        let names = byName.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let canonicalHeaders = names.map { "\($0):\(byName[$0]!.joined(separator: ","))\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        let text = [method.uppercased(), canonicalURI(of: url), Self.canonicalQuery(of: url),
                    canonicalHeaders, signedHeaders, payloadHash].joined(separator: "\n")
        return (text, signedHeaders)
    }

    /// The string to sign for a canonical request made at `timestamp` (`YYYYMMDDTHHMMSSZ`).
    func stringToSign(canonical: String, timestamp: String) -> String {
        let scope = "\(timestamp.prefix(8))/\(region)/\(service)/aws4_request"
        return "AWS4-HMAC-SHA256\n\(timestamp)\n\(scope)\n" + Self.hex(SHA256.hash(data: Data(canonical.utf8)))
    }

    private func signingKey(day: String) -> SymmetricKey {
        var key = SymmetricKey(data: Data("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return key
    }

    /// The URL's path as signed: segments decoded and encoded again (normalised for services
    /// other than S3); `/` for an empty path.
    func canonicalURI(of url: URL) -> String {
        let path = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedPath ?? ""
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map {
            Self.encode(Self.decodedBytes($0))
        }
        if normalizesPath {
            var kept: [String] = []
            for segment in segments where !segment.isEmpty && segment != "." {
                if segment == ".." { _ = kept.popLast() } else { kept.append(segment) }
            }
            let trailing = path.count > 1 && path.hasSuffix("/") && !kept.isEmpty
            segments = kept + (trailing ? [""] : [])
        }
        return "/" + segments.joined(separator: "/")
    }

    /// The query's pairs decoded, encoded again and sorted by name, then value; a name without
    /// `=` has an empty value.
    static func canonicalQuery(of url: URL) -> String {
        guard let query = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedQuery,
              !query.isEmpty else { return "" }
        let pairs = query.split(separator: "&").map { item -> (String, String) in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (encode(decodedBytes(parts[0])), parts.count > 1 ? encode(decodedBytes(parts[1])) : "")
        }
        return pairs.sorted { left, right in
            left.0 != right.0 ? Array(left.0.utf8).lexicographicallyPrecedes(Array(right.0.utf8))
                : Array(left.1.utf8).lexicographicallyPrecedes(Array(right.1.utf8))
        }.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    /// The `Host` header for `url`: its host, and its port when it is not the scheme's default.
    static func hostHeader(of url: URL) -> String {
        let host = url.host ?? ""
        let shown = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        guard let port = url.port else { return shown }
        let standard = url.scheme?.lowercased() == "https" ? 443 : 80
        return port == standard ? shown : "\(shown):\(port)"
    }

    /// The bytes `text` spells with its `%XX` escapes decoded (a `%` not followed by two hex
    /// digits is kept as it is).
    static func decodedBytes(_ text: some StringProtocol) -> [UInt8] {
        let utf8 = Array(text.utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count,
               let high = HexDigit.value(utf8[index + 1]), let low = HexDigit.value(utf8[index + 2]) {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return bytes
    }

    /// `bytes` with every byte outside `A–Z a–z 0–9 - . _ ~` written as `%XX` (uppercase hex).
    static func encode(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 3)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A header value without leading and trailing spaces and with inner runs of spaces made one.
    static func trimmed(_ value: String) -> String {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }

    /// `YYYYMMDDTHHMMSSZ` in UTC.
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func padded(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return padded(parts.tm_year + 1900, 4) + padded(parts.tm_mon + 1, 2) + padded(parts.tm_mday, 2) + "T"
            + padded(parts.tm_hour, 2) + padded(parts.tm_min, 2) + padded(parts.tm_sec, 2) + "Z"
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

}

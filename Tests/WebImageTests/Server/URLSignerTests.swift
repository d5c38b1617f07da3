import Testing
@testable import WebImageServer

@Suite("URL signatures (imgproxy HMAC-SHA256)")
struct URLSignerTests {
    static let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
    static let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
    static let plainPath = "/rs:fit:300:300/plain/http://img.example.com/pretty/image.jpg"
    static let base64Path = "/rs:fit:300:300/aHR0cDovL2ltZy5leGFtcGxlLmNvbS9wcmV0dHkvaW1hZ2UuanBn"

    static func signer(size: Int = 32) throws -> URLSigner {
        try URLSigner(keys: [key], salts: [salt], signatureSize: size)
    }

    /// The reference's vectors for the documented key pair (imgproxy's examples and computed ones).
    @Test(arguments: [
        (plainPath, 32, "m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqavc"),
        (plainPath, 8, "m3k5QADfcKM"),
        (base64Path, 32, "u2SLSILeNtH2I29YXN20YiliFFEG1K3_-XKZH-t-jvM"),
        (base64Path + ".png", 32, "XKufL-dXGOamImg12ByLlGJXxElxC63lePLySOmXZyM"),
        ("/rs:fit:300:300/aHR0cDovL2ltZy5l/eGFtcGxlLmNvbS9w/cmV0dHkvaW1hZ2Uu/anBn", 32,
         "52xnpFJzzFp4YI8sbPXiuu0iXDI4hmt8n91QL01_ueo"),
    ])
    func documentedKeyVectors(path: String, size: Int, expected: String) throws {
        let signer = try Self.signer(size: size)
        #expect(signer.signature(for: path) == expected)
        #expect(signer.isValid(signature: expected, for: path))
    }

    @Test func signingDocumentationVector() throws {
        let signer = try URLSigner(keys: ["736563726574"], salts: ["68656C6C6F"])
        let path = "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"
        #expect(signer.signature(for: path) == "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8")
        #expect(signer.isValid(signature: "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8", for: path))
    }

    @Test func rawKeyVectorFromImgproxyTests() throws {
        let signer = try URLSigner(rawKeys: [Array("test-key".utf8)], rawSalts: [Array("test-salt".utf8)])
        #expect(signer.signature(for: "/asd") == "oWaL7QoW5TsgbuiS9-5-DI8S3Ibbo1gdB2SteJh3a20")
        #expect(signer.isValid(signature: "oWaL7QoW5TsgbuiS9-5-DI8S3Ibbo1gdB2SteJh3a20", for: "/asd"))
    }

    @Test func substringsAreAccepted() throws {
        let target = "/m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqavc" + Self.plainPath
        let signature = target.dropFirst().prefix(43)
        let path = target.dropFirst(44)
        #expect(try Self.signer().isValid(signature: signature, for: path))
    }

    @Test func wrongSignaturesFail() throws {
        let signer = try Self.signer()
        let good = "m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqavc"
        // Another path, one character changed, truncated, padded, empty, not base64.
        #expect(!signer.isValid(signature: good, for: Self.plainPath + "x"))
        #expect(!signer.isValid(signature: "n" + good.dropFirst(), for: Self.plainPath))
        #expect(!signer.isValid(signature: good.dropLast(), for: Self.plainPath))
        #expect(!signer.isValid(signature: good.dropLast(4), for: Self.plainPath))
        #expect(!signer.isValid(signature: good + "=", for: Self.plainPath))
        #expect(!signer.isValid(signature: "", for: Self.plainPath))
        #expect(!signer.isValid(signature: "unsafe", for: Self.plainPath))
        #expect(!signer.isValid(signature: "m3k5QADfcKPDj+SDI2AIogZbC3FlAXszuwhtWXYqavc", for: Self.plainPath))
    }

    @Test func aShortSignatureMustHaveTheConfiguredSize() throws {
        // The 8-byte signature is the 32-byte one's prefix, yet each signer takes only its own size.
        #expect(!(try Self.signer()).isValid(signature: "m3k5QADfcKM", for: Self.plainPath))
        #expect(!(try Self.signer(size: 8)).isValid(signature: "m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqavc",
                                                   for: Self.plainPath))
        #expect(!(try Self.signer(size: 8)).isValid(signature: "m3k5QADfcKM=", for: Self.plainPath))
    }

    @Test func rotatedKeysAcceptEveryPairAndSignWithTheFirst() throws {
        let signer = try URLSigner(keys: ["00112233", Self.key], salts: ["aabb", Self.salt])
        #expect(signer.pairCount == 2)
        // Signed under the second (older) pair: still valid.
        #expect(signer.isValid(signature: "m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqavc", for: Self.plainPath))
        // New signatures come from the first pair, and are valid too.
        let fresh = signer.signature(for: Self.plainPath)
        #expect(fresh != "m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqavc")
        #expect(signer.isValid(signature: fresh, for: Self.plainPath))
        let firstOnly = try URLSigner(keys: ["00112233"], salts: ["aabb"])
        #expect(firstOnly.signature(for: Self.plainPath) == fresh)
        #expect(!firstOnly.isValid(signature: "m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqavc", for: Self.plainPath))
    }

    @Test func signedPathPrefixesTheSignature() throws {
        #expect(try Self.signer().signedPath(Self.plainPath)
            == "/m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqavc" + Self.plainPath)
    }

    @Test func hexIsCaseInsensitive() throws {
        let upper = try URLSigner(keys: [Self.key.uppercased()], salts: [Self.salt.uppercased()])
        #expect(upper.signature(for: Self.plainPath) == "m3k5QADfcKPDj-SDI2AIogZbC3FlAXszuwhtWXYqavc")
    }

    @Test(arguments: [
        (["aa"], ["bb", "cc"], 32, "pairs"),
        ([], [], 32, "at least one"),
        (["zz"], ["bb"], 32, "Key 1 is not hex"),
        (["abc"], ["bb"], 32, "Key 1 is not hex"),
        (["aa"], ["b"], 32, "Salt 1 is not hex"),
        ([""], ["bb"], 32, "Key 1 is empty"),
        (["aa"], ["bb"], 0, "1–32"),
        (["aa"], ["bb"], 33, "1–32"),
    ])
    func badConfigurationsThrowAClearError(keys: [String], salts: [String], size: Int, fragment: String) {
        do {
            _ = try URLSigner(keys: keys, salts: salts, signatureSize: size)
            Issue.record("expected an error for keys \(keys), salts \(salts), size \(size)")
        } catch {
            #expect(error.message.contains(fragment), "\(error.message)")
        }
    }

    @Test func base64RoundTrips() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let encoded = Base64URL.encode(bytes)
            #expect(!encoded.contains("="))
            #expect(Base64URL.decode(encoded) == bytes)
        }
        #expect(Base64URL.decode("a") == nil)
        #expect(Base64URL.decode("ab=c") == nil)
        #expect(Base64URL.decode("ab/c") == nil)
        #expect(Base64URL.encode(Array("my-file".utf8)) == "bXktZmlsZQ")
    }
}

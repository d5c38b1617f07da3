import Foundation
import Testing
@testable import WebImageLoading

/// The SigV4 signer against AWS's published test data: vectors of the aws-sig-v4-test-suite
/// (credentials AKIDEXAMPLE, 2015-08-30T12:36:00Z, us-east-1, service `service`) and the S3
/// documentation's signed GET Object example.
@Suite("AWS Signature Version 4")
struct AWSSignerTests {
    static let suiteSigner = AWSSigner(
        credentials: AWSCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1", service: "service")
    /// 2015-08-30T12:36:00Z.
    static let suiteDate = Date(timeIntervalSince1970: 1_440_938_160)

    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let method: String
        let target: String
        let headers: [(String, String)]
        let body: String
        let signedHeaders: String
        let signature: String
        var testDescription: String { name }
    }

    static let vectors: [Vector] = [
        Vector(name: "get-vanilla", method: "GET", target: "/", headers: [], body: "", signedHeaders: "host;x-amz-date",
               signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        Vector(name: "get-unreserved", method: "GET",
               target: "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", headers: [], body: "",
               signedHeaders: "host;x-amz-date",
               signature: "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"),
        Vector(name: "get-slashes", method: "GET", target: "//example//", headers: [], body: "",
               signedHeaders: "host;x-amz-date",
               signature: "9a624bd73a37c9a373b5312afbebe7a714a789de108f0bdfe846570885f57e84"),
        Vector(name: "get-vanilla-query-order-key-case", method: "GET", target: "/?Param2=value2&Param1=value1",
               headers: [], body: "", signedHeaders: "host;x-amz-date",
               signature: "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"),
        Vector(name: "get-vanilla-query-order-value", method: "GET", target: "/?Param1=value2&Param1=value1",
               headers: [], body: "", signedHeaders: "host;x-amz-date",
               signature: "5772eed61e12b33fae39ee5e7012498b51d56abc0abb7c60486157bd471c4694"),
        Vector(name: "get-vanilla-utf8-query", method: "GET", target: "/?%E1%88%B4=bar", headers: [], body: "",
               signedHeaders: "host;x-amz-date",
               signature: "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"),
        Vector(name: "get-header-value-order", method: "GET", target: "/",
               headers: [("My-Header1", "value4"), ("My-Header1", "value1"), ("My-Header1", "value3"), ("My-Header1", "value2")],
               body: "", signedHeaders: "host;my-header1;x-amz-date",
               signature: "08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01"),
        Vector(name: "get-header-key-duplicate", method: "GET", target: "/",
               headers: [("My-Header1", "value2"), ("My-Header1", "value2"), ("My-Header1", "value1")],
               body: "", signedHeaders: "host;my-header1;x-amz-date",
               signature: "c9d5ea9f3f72853aea855b47ea873832890dbdd183b4468f858259531a5138ea"),
        Vector(name: "get-header-value-trim", method: "GET", target: "/",
               headers: [("My-Header1", " value1"), ("My-Header2", "\"a   b   c\"")], body: "",
               signedHeaders: "host;my-header1;my-header2;x-amz-date",
               signature: "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"),
        Vector(name: "post-x-www-form-urlencoded", method: "POST", target: "/",
               headers: [("Content-Type", "application/x-www-form-urlencoded")], body: "Param1=value1",
               signedHeaders: "content-type;host;x-amz-date",
               signature: "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a"),
    ]

    @Test(arguments: vectors)
    func aPublishedVectorSignsToItsPublishedAuthorization(vector: Vector) throws {
        let url = try #require(URL(string: "https://example.amazonaws.com" + vector.target))
        let hash = AWSSigner.payloadHash(Data(vector.body.utf8))
        let headers = Self.suiteSigner(vector.headers, url: url, method: vector.method, hash: hash)
        #expect(headers[header: "Authorization"] == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/"
            + "aws4_request, SignedHeaders=\(vector.signedHeaders), Signature=\(vector.signature)")
        #expect(headers[header: "X-Amz-Date"] == "20150830T123600Z")
        #expect(headers[header: "Host"] == "example.amazonaws.com")
    }

    /// get-vanilla's published intermediate steps: the canonical request and the string to sign.
    @Test func getVanillaCanonicalRequestAndStringToSign() throws {
        let url = try #require(URL(string: "https://example.amazonaws.com/"))
        let canonical = Self.suiteSigner.canonicalRequest(
            method: "GET", url: url,
            headers: [HTTPHeaderField(name: "Host", value: "example.amazonaws.com"),
                      HTTPHeaderField(name: "X-Amz-Date", value: "20150830T123600Z")],
            payloadHash: AWSSigner.emptyPayloadHash)
        #expect(canonical.text == "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n"
            + AWSSigner.emptyPayloadHash)
        #expect(Self.suiteSigner.stringToSign(canonical: canonical.text, timestamp: "20150830T123600Z")
            == "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n"
            + "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63")
    }

    /// The suite's published canonical URI lines (get-space, get-utf8, get-relative,
    /// get-relative-relative, get-slash-dot-slash, get-slash-pointless-dot) for the paths a URL
    /// carries percent-encoded; an escaped `/` stays inside its segment.
    @Test(arguments: [("/example%20space/", "/example%20space/"), ("/%E1%88%B4", "/%E1%88%B4"),
                      ("/example/..", "/"), ("/example1/example2/../..", "/"), ("/./", "/"),
                      ("/./example", "/example"), ("/a%2Fb", "/a%2Fb")])
    func canonicalURIs(path: String, canonical: String) throws {
        let url = try #require(URL(string: "https://example.amazonaws.com" + path))
        #expect(Self.suiteSigner.canonicalURI(of: url) == canonical)
    }

    /// The S3 documentation's example: GET Object with a Range header, the empty payload's hash
    /// sent as x-amz-content-sha256 (AKIAIOSFODNN7EXAMPLE, 2013-05-24T00:00:00Z).
    @Test func theS3GetObjectExample() throws {
        let signer = AWSSigner(
            credentials: AWSCredentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE",
                                        secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            region: "us-east-1", service: "s3")
        let url = try #require(URL(string: "https://examplebucket.s3.amazonaws.com/test.txt"))
        let headers = signer.signed(method: "GET", url: url,
                                    headers: [HTTPHeaderField(name: "Range", value: "bytes=0-9"),
                                              HTTPHeaderField(name: "x-amz-content-sha256", value: AWSSigner.emptyPayloadHash)],
                                    date: Date(timeIntervalSince1970: 1_369_353_600))
        #expect(headers[header: "Authorization"] == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/"
            + "aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    /// S3 signs the key as it is: no dot-segment or slash normalisation.
    @Test func s3KeysAreSignedExactly() throws {
        let signer = AWSSigner(credentials: AWSCredentials(accessKeyID: "a", secretAccessKey: "b"), region: "r", service: "s3")
        let url = try #require(URL(string: "http://127.0.0.1:9000/bucket/a//b/./c%20d"))
        #expect(signer.canonicalURI(of: url) == "/bucket/a//b/./c%20d")
    }

    @Test func aSessionTokenIsSentAndSigned() throws {
        var signer = Self.suiteSigner
        signer.credentials.sessionToken = "token/with+chars"
        let url = try #require(URL(string: "https://example.amazonaws.com/"))
        let headers = signer.signed(method: "GET", url: url, date: Self.suiteDate)
        #expect(headers[header: "X-Amz-Security-Token"] == "token/with+chars")
        #expect(headers[header: "Authorization"]?.contains("SignedHeaders=host;x-amz-date;x-amz-security-token,") == true)
        #expect(headers[header: "Authorization"] != Self.suiteSigner.signed(method: "GET", url: url, date: Self.suiteDate)[header: "Authorization"])
    }

    @Test func hostHeadersNameNonDefaultPorts() throws {
        #expect(AWSSigner.hostHeader(of: URL(string: "http://127.0.0.1:9000/b/k")!) == "127.0.0.1:9000")
        #expect(AWSSigner.hostHeader(of: URL(string: "https://s3.amazonaws.com:443/b/k")!) == "s3.amazonaws.com")
        #expect(AWSSigner.hostHeader(of: URL(string: "http://[::1]:9000/b")!) == "[::1]:9000")
    }

    @Test func credentialsComeFromTheEnvironment() {
        #expect(AWSCredentials.fromEnvironment([:]) == nil)
        #expect(AWSCredentials.fromEnvironment(["AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": ""]) == nil)
        #expect(AWSCredentials.fromEnvironment(["AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b", "AWS_SESSION_TOKEN": "t"])
            == AWSCredentials(accessKeyID: "a", secretAccessKey: "b", sessionToken: "t"))
    }
}

extension AWSSigner {
    /// Signs a vector's request at the suite's date.
    fileprivate func callAsFunction(_ headers: [(String, String)], url: URL, method: String, hash: String) -> [HTTPHeaderField] {
        signed(method: method, url: url, headers: headers.map { HTTPHeaderField(name: $0.0, value: $0.1) },
               payloadHash: hash, date: AWSSignerTests.suiteDate)
    }
}

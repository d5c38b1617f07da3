import NIOSSL

/// TEST-ONLY key material for the HTTPS test origin: a self-signed P-256 certificate for
/// 127.0.0.1 and localhost, valid 2026–2126. Its private key is public (it is in this file), so
/// it must never be trusted anywhere outside these tests.
///
/// Made once with:
/// `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500
///  -subj "/CN=WebImage test origin" -addext "subjectAltName=IP:127.0.0.1,DNS:localhost"
///  -addext "basicConstraints=critical,CA:FALSE" -addext "keyUsage=critical,digitalSignature"
///  -addext "extendedKeyUsage=serverAuth"`
enum TestOriginTLS {
    static let certificatePEM = """
-----BEGIN CERTIFICATE-----
MIIB1TCCAXugAwIBAgIUfbsIdTowXNbkLgRUYgOuoJKjotQwCgYIKoZIzj0EAwIw
HzEdMBsGA1UEAwwUV2ViSW1hZ2UgdGVzdCBvcmlnaW4wIBcNMjYxMTIyMDIzMDE4
WhgPMjEyNjEwMjkwMjMwMThaMB8xHTAbBgNVBAMMFFdlYkltYWdlIHRlc3Qgb3Jp
Z2luMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAED8mgPxb1HiomEb/EsgmDOol5
tSaloZ3hXkOTvuIFovT2vR9Jcsm0LxTtB4aejXq7Z100NLmfsP0ikcaAbpWASqOB
kjCBjzAdBgNVHQ4EFgQUsrQ+IlCZEyPk1jqofpsuIL111yAwHwYDVR0jBBgwFoAU
srQ+IlCZEyPk1jqofpsuIL111yAwGgYDVR0RBBMwEYcEfwAAAYIJbG9jYWxob3N0
MAwGA1UdEwEB/wQCMAAwDgYDVR0PAQH/BAQDAgeAMBMGA1UdJQQMMAoGCCsGAQUF
BwMBMAoGCCqGSM49BAMCA0gAMEUCIQCd8+j51U4KCv0iTCiruX2N4wl5kFt6ImuB
/IJZ2+5mCgIgH0YISBTmdGzWoKbqsSgusvG7aWB0AZI7w/TqNuX5t+U=
-----END CERTIFICATE-----
"""

    static let privateKeyPEM = """
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQguN48vB3OLemq/Jm/
zL9gs3yexEkTaS15+MtV3DX/PzWhRANCAAQPyaA/FvUeKiYRv8SyCYM6iXm1JqWh
neFeQ5O+4gWi9Pa9H0lyybQvFO0Hhp6NertnXTQ0uZ+w/SKRxoBulYBK
-----END PRIVATE KEY-----
"""

    /// A server-side TLS context presenting the self-signed certificate.
    static func serverContext() throws -> NIOSSLContext {
        let certificate = try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem)
        let key = try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)
        let configuration = TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(certificate)],
                                                                     privateKey: .privateKey(key))
        return try NIOSSLContext(configuration: configuration)
    }
}

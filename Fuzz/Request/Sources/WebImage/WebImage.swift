// The image layer under the name the server's files import it by.
@_exported import WebImageCodecs

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One encode in a child process: its pixels go to the child's standard input, the encoded bytes
/// come back on its standard output, through `AF_UNIX` socket pairs (a child that dies early
/// cannot raise SIGPIPE here: writes use `MSG_NOSIGNAL`). Every 20 ms without progress, and
/// between blocks, the thread's ``WorkCancellation`` is looked at; once it is cancelled the child
/// is killed and reaped.
struct EncoderProcessRun {
    let process: EncoderProcess
    let arguments: [String]
    /// The most bytes the child may answer with.
    let maxOutput: Int

    /// The child's standard output, once it exited with status 0.
    func run(input: UnsafeRawBufferPointer, started: ((pid_t) -> Void)? = nil) throws -> [UInt8] {
        let stdin = try Self.socketPair(), stdout = try Self.socketPair(), stderr = try Self.socketPair()
        var parentEnds = [stdin.parent, stdout.parent, stderr.parent]
        defer { for fd in parentEnds where fd >= 0 { close(fd) } }
        let pid: pid_t
        do {
            defer { [stdin.child, stdout.child, stderr.child].forEach { _ = close($0) } }
            pid = try spawn(stdin: stdin.child, stdout: stdout.child, stderr: stderr.child)
        }
        started?(pid)
        var output: [UInt8] = [], errors: [UInt8] = []
        var written = 0
        do {
            if input.isEmpty { close(parentEnds[0]); parentEnds[0] = -1 }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while parentEnds[1] >= 0 || parentEnds[2] >= 0 {
                try WorkCancellation.checkCurrent()
                var polls = parentEnds.enumerated().map { index, fd in
                    pollfd(fd: fd, events: Int16(index == 0 ? POLLOUT : POLLIN), revents: 0)
                }
                let ready = poll(&polls, nfds_t(polls.count), 20)
                if ready < 0 && errno != EINTR { throw failure("waiting for the encoder process", errno) }
                guard ready > 0 else { continue }
                if parentEnds[0] >= 0, polls[0].revents != 0 {
                    let n = send(parentEnds[0], input.baseAddress! + written, min(input.count - written, 1 << 20),
                                 Int32(MSG_NOSIGNAL))
                    if n > 0 { written += n }
                    if written == input.count || (n < 0 && errno != EAGAIN && errno != EINTR) {
                        close(parentEnds[0]); parentEnds[0] = -1
                    }
                }
                for index in 1...2 where parentEnds[index] >= 0 && polls[index].revents != 0 {
                    let n = chunk.withUnsafeMutableBytes { read(parentEnds[index], $0.baseAddress, $0.count) }
                    if n > 0 {
                        if index == 1 { output.append(contentsOf: chunk[0..<n]) } else if errors.count < 4096 {
                            errors.append(contentsOf: chunk[0..<min(n, 4096 - errors.count)])
                        }
                        if output.count > maxOutput {
                            throw WebImageError(.encodingFailed, "The encoder process answered with more than \(maxOutput) bytes.")
                        }
                    } else if n == 0 || (errno != EAGAIN && errno != EINTR) {
                        close(parentEnds[index]); parentEnds[index] = -1
                    }
                }
            }
        } catch {
            kill(pid, SIGKILL)
            _ = Self.reap(pid)
            throw error
        }
        let status = Self.reap(pid)
        guard status == 0, written == input.count else {
            let said = String(decoding: errors, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw WebImageError(.encodingFailed,
                "The encoder process ended with status \(status)\(said.isEmpty ? "" : ": " + said).")
        }
        return output
    }

    private func spawn(stdin: Int32, stdout: Int32, stderr: Int32) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, STDIN_FILENO)
        posix_spawn_file_actions_adddup2(&actions, stdout, STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, stderr, STDERR_FILENO)
        Self.closeFrom(3, in: &actions)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([process.executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, process.executable, &actions, &attributes, argv, environ)
        guard result == 0 else { throw failure("starting \(process.executable)", result) }
        return pid
    }

    /// A connected pair: the parent's end non-blocking, both closed on exec (the child's end is
    /// duplicated onto a standard descriptor, which stays open).
    private static func socketPair() throws -> (parent: Int32, child: Int32) {
        var fds: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &fds) == 0 else {
            throw WebImageError(.encodingFailed, "No socket pair for the encoder process (errno \(errno)).")
        }
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        return (fds[0], fds[1])
    }

    /// Closes every descriptor from `lowest` up in the child (a server's listening socket and
    /// connections must not live on in it), where the C library has the call (glibc 2.34+).
    private static func closeFrom(_ lowest: Int32, in actions: inout posix_spawn_file_actions_t) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        else { return }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, lowest)
    }

    /// Waits for `pid` to end; its exit status, or 128 + the signal that ended it.
    private static func reap(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return -1 }
        }
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    private func failure(_ action: String, _ code: Int32) -> WebImageError {
        WebImageError(.encodingFailed, "The encoder process failed while \(action): \(String(cString: strerror(code))).")
    }
}

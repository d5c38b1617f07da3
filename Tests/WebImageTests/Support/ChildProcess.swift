import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, for the tests that run the `webimage` CLI or a
/// system tool. Foundation's `Process` is not used because its Linux implementation leaks objects
/// (LeakSanitizer reports them under `make asan`) and because its pipes and file reads go through
/// Foundation paths that leak on empty output.
final class ChildProcess: Sendable {
    /// Where the child's stdout or stderr goes.
    enum Output: Sendable {
        /// `/dev/null`.
        case null
        /// A pipe the test reads with ``readStdout()`` / ``readAvailableStdout()`` (stdout only).
        case pipe
        /// A file, created or truncated.
        case file(String)
    }

    /// How the child ended.
    enum Termination: Equatable, Sendable {
        case exited(Int32)
        case signaled(Int32)

        /// The exit status, or 128 + the signal number (as a shell reports it).
        var status: Int32 {
            switch self {
            case .exited(let code): code
            case .signaled(let signal): 128 + signal
            }
        }
    }

    /// The child's process id.
    let pid: pid_t
    /// Read end of the stdout pipe when stdout is `.pipe`, else -1.
    private let stdoutPipe: Int32
    /// Set once `wait()` has reaped the child; a reaped pid is never signalled.
    private let termination = Mutex<Termination?>(nil)

    /// Starts `executable` with `arguments`; `environment` nil inherits this process's.
    init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
         stdout: Output = .null, stderr: Output = .null) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentSideToClose: [Int32] = []
        defer { parentSideToClose.forEach { _ = close($0) } }

        var readEnd: Int32 = -1
        for (output, target) in [(stdout, STDOUT_FILENO), (stderr, STDERR_FILENO)] {
            switch output {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            case .pipe:
                precondition(target == STDOUT_FILENO && readEnd < 0, "only stdout can be a pipe")
                var fds: [Int32] = [-1, -1]
                guard GlibcExtensions.pipe2(&fds, O_CLOEXEC) == 0 else { throw ChildProcessError.spawn(errno) }
                readEnd = fds[0]
                parentSideToClose.append(fds[1])
                posix_spawn_file_actions_adddup2(&actions, fds[1], target)
            }
        }
        // Only 0, 1 and 2 reach the child (the test process holds sockets and cache files).
        GlibcExtensions.addCloseFrom(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let env = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }

        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            if readEnd >= 0 { close(readEnd) }
            throw ChildProcessError.spawn(result)
        }
        pid = child
        stdoutPipe = readEnd
    }

    deinit {
        if stdoutPipe >= 0 { close(stdoutPipe) }
        // A child nobody waited for (a test that failed early) is killed and reaped.
        send(SIGKILL)
        wait()
    }

    /// Blocks until the child ends (call it off the cooperative pool); later calls return at once.
    @discardableResult
    func wait() -> Termination {
        // Wait without reaping, so `send` (under the lock) never signals a pid already reused.
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        return termination.withLock { ended in
            if let ended { return ended }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            let signal = status & 0x7f
            let result: Termination = signal == 0 ? .exited((status >> 8) & 0xff) : .signaled(signal)
            ended = result
            return result
        }
    }

    /// Sends `signal` unless the child has already been reaped (its pid may belong to another).
    func send(_ signal: Int32) {
        termination.withLock { ended in
            if ended == nil { _ = kill(pid, signal) }
        }
    }

    /// Reads the stdout pipe to its end.
    func readStdout() -> [UInt8] {
        precondition(stdoutPipe >= 0, "stdout is not a pipe")
        return Self.readToEnd(stdoutPipe)
    }

    /// One read of the stdout pipe: what is there now (blocking until something is), empty at its end.
    func readAvailableStdout() -> [UInt8] {
        precondition(stdoutPipe >= 0, "stdout is not a pipe")
        return Self.readOnce(stdoutPipe)
    }

    /// The whole content of the file at `path`, read with POSIX calls; empty if it is missing.
    static func readFile(_ path: String) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        return readToEnd(fd)
    }

    /// Everything until the end of `fd`.
    private static func readToEnd(_ fd: Int32) -> [UInt8] {
        var all: [UInt8] = []
        while true {
            let chunk = readOnce(fd)
            if chunk.isEmpty { return all }
            all += chunk
        }
    }

    /// One `read` of up to 64 KiB (retried on EINTR); empty at the end or on an error.
    private static func readOnce(_ fd: Int32) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count >= 0 { return Array(buffer.prefix(count)) }
            if errno != EINTR { return [] }
        }
    }
}

/// GNU functions Swift's Glibc module does not import (glibc 2.34+ has both), found at run time.
private enum GlibcExtensions {
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    static func pipe2(_ fds: UnsafeMutablePointer<Int32>, _ flags: Int32) -> Int32 {
        unsafeBitCast(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pipe2"), to: Pipe2.self)(fds, flags)
    }

    static func addCloseFrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ lowest: Int32) {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        else { return }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(actions, lowest)
    }
}

/// A child process could not be started.
enum ChildProcessError: Error, CustomStringConvertible {
    case spawn(Int32)

    var description: String {
        switch self {
        case .spawn(let code): "posix_spawn failed: \(String(cString: strerror(code)))"
        }
    }
}

/// Runs a blocking call on a thread of its own so it never holds a thread of the cooperative pool,
/// which the tests running meanwhile need. Not `DispatchQueue.global()`: on Linux the pool runs on
/// Dispatch's global queues, so a few children awaited there would take every pool thread.
func offThePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

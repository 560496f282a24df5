"""Forged ZeroMQ traffic: ZMTP 3.0 spoken by hand (NULL security) to every ZeroMQ
socket of the job, which must refuse it and go on."""
import socket
import struct
import time


def zmtp_frame(body, more=False, command=False):
    flags = (1 if more else 0) | (4 if command else 0)
    if len(body) > 255:
        return bytes([flags | 2]) + struct.pack(">Q", len(body)) + body
    return bytes([flags, len(body)]) + body


def zmtp_connect(connect, socket_type):
    """A socket that has done ZMTP's greeting and READY as `socket_type`."""
    s = connect()
    s.settimeout(1.0)
    greeting = b"\xff" + b"\0" * 8 + b"\x7f" + b"\x03\x00" + b"NULL".ljust(20, b"\0") + b"\0" * 32
    s.sendall(greeting)
    prop = b"\x0bSocket-Type" + struct.pack(">I", len(socket_type)) + socket_type
    s.sendall(zmtp_frame(b"\x05READY" + prop, command=True))
    # The peer's greeting (64 bytes) and READY: the handshake is done, and
    # what follows is read as messages, not as a broken greeting.
    received = b""
    while len(received) < 66 or len(received) < 66 + received[65]:
        chunk = s.recv(512)
        if not chunk:
            raise OSError("closed during the handshake")
        received += chunk
    return s


def zmtp_close(s):
    """Closes after the peer has read what was sent (an unread close is a reset)."""
    time.sleep(0.02)
    s.shutdown(socket.SHUT_WR)
    s.close()


def forge(duration_s, rng):
    """Sends forged messages to every ZeroMQ socket of the job in this
    process's network namespace (nsenter put it in the job's), for duration_s: PS headers of random bytes and of
    a plausible shape with a wrong step, to TCP listeners on 127.0.0.1; stall
    reports without the job's token, to the abstract Unix sockets."""
    tcp_ports = set()
    for line in open("/proc/net/tcp").read().splitlines()[1:]:
        fields = line.split()
        local, state = fields[1], fields[3]
        address, port = local.split(":")
        if state == "0A" and address == "0100007F":  # LISTEN on 127.0.0.1
            tcp_ports.add(int(port, 16))
    boards = [line.split()[-1][1:] for line in open("/proc/net/unix").read().splitlines()[1:]
              if line.split()[-1].startswith("@gradsync-stall-")]
    sent = 0
    deadline = time.monotonic() + duration_s
    while time.monotonic() < deadline:
        for port in tcp_ports:
            try:
                s = zmtp_connect(lambda: socket.create_connection(("127.0.0.1", port), 1.0), b"DEALER")
                header = bytes(rng.getrandbits(8) for _ in range(48))
                s.sendall(zmtp_frame(header, more=True) + zmtp_frame(b"\0" * 64))
                zmtp_close(s)
                sent += 1
            except OSError:
                pass
        for name in boards:
            try:
                def connect_unix(name=name):
                    u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    u.connect("\0" + name)
                    return u
                s = zmtp_connect(connect_unix, b"PUSH")
                s.sendall(zmtp_frame(b"gradsync-stall 0123456789abcdef 1 99 0"))
                zmtp_close(s)
                sent += 1
            except OSError:
                pass
        time.sleep(0.05)
    return sent

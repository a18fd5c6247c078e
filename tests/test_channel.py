"""The pipe the stream's reader and its worker talk through (:mod:`transforms.cli.channel`)."""

from __future__ import annotations

import os
import threading

import pytest

from transforms.cli.channel import pipe


def test_objects_larger_than_the_pipe_holds_come_back_whole_and_in_order() -> None:
    reading, writing = pipe()
    sent = [("part", [{"name": f"job-{n}", "spec": "x" * n}], n) for n in range(0, 300_000, 30_000)]
    received: list[object] = []

    def take() -> None:
        for _ in sent:
            received.append(reading.recv())

    taker = threading.Thread(target=take)
    taker.start()
    for message in sent:  # most are more than a pipe's 64 KiB: written in several writes
        writing.send(message)
    taker.join(timeout=30)
    assert received == sent
    writing.close()
    reading.close()


def test_a_writer_closed_inside_an_object_is_the_end_of_the_pipe() -> None:
    reading, writing = pipe()
    writing.write((100).to_bytes(8, "big") + b"only part of it")
    writing.close()
    with pytest.raises(EOFError):
        reading.recv()
    reading.close()


def test_sending_to_a_closed_reader_is_an_os_error() -> None:
    reading, writing = pipe()
    reading.close()
    with pytest.raises(BrokenPipeError):
        writing.send(("part", [], 1))
    writing.close()


def test_a_closed_end_refuses_and_closes_once() -> None:
    reading, writing = pipe()
    descriptor = writing.descriptor
    writing.close()
    with pytest.raises(OSError):
        os.fstat(descriptor)
    writing.close()  # again: nothing
    with pytest.raises(OSError, match="closed"):
        writing.send("x")
    reading.close()

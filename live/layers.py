"""The channel layer: channels_redis' Redis pub/sub layer, publishing without waiting in line.

channels_redis (4.3) sends every PUBLISH of a process under one asyncio lock, the same lock that
guards its subscriptions. Under load each publish then waits for the previous one's reply to
come back through a busy event loop, so a daphne process publishes one message per loop turn:
the moves of two hundred games queued behind each other (bench/live.py). A PUBLISH needs no
shared state, so here it goes straight to the client's connection pool, which gives concurrent
commands their own connections; subscribing keeps the lock.
"""

from __future__ import annotations

import asyncio

from channels_redis.pubsub import (
    RedisPubSubChannelLayer,
    RedisPubSubLoopLayer,
    RedisSingleShardConnection,
)
from channels_redis.utils import _wrap_close


class _Shard(RedisSingleShardConnection):
    async def publish(self, channel: str, message: bytes) -> None:
        redis = self._redis
        if redis is None:
            async with self._lock:
                self._ensure_redis()
                redis = self._redis
        await redis.publish(channel, message)


class _LoopLayer(RedisPubSubLoopLayer):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._shards = [_Shard(shard.host, self) for shard in self._shards]


class PubSubChannelLayer(RedisPubSubChannelLayer):
    def _get_layer(self) -> RedisPubSubLoopLayer:
        # As channels_redis does it (one layer per event loop, closed with the loop), with our
        # loop layer.
        loop = asyncio.get_running_loop()
        layer = self._layers.get(loop)
        if layer is None:
            layer = self._layers[loop] = _LoopLayer(*self._args, **self._kwargs, channel_layer=self)
            _wrap_close(self, loop)
        return layer

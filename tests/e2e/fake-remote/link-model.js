// Test-only: the emulated remote's link as a user has it (issue 34). Every call that crosses VS
// Code's remote connection (a file system provider call, a command of Tether Remote) is one round
// trip: half the round-trip time plus jitter and the request's bytes over the bandwidth before the
// "remote" does the work, the other half plus the answer's bytes after. Each is counted by name,
// with its bytes and the delay it was given, so a test can say how many round trips a tool takes
// and what the link added. A latency spike adds to every round trip until it ends. Set through
// `_tetherfake.linkModel`, read (and reset) through `_tetherfake.linkStats`.

/** How many calls the counts name one by one (name and what it was about), the first ones. */
const NAMED_CALLS = 200;

/** A small seeded generator (mulberry32), so a run's jitter can be repeated. */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms) => (ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve());

function emptyStats() {
  return { roundTrips: 0, byName: {}, bytesUp: 0, bytesDown: 0, delayMs: 0, maxInflight: 0, calls: [] };
}

class LinkModel {
  constructor() {
    /** Round trips under way now (they overlap when calls are made at once). */
    this.inflight = 0;
    this.configure({});
  }

  /** `{rttMs, jitterMs, bandwidthBytesPerSec, seed, spike: {extraMs, forMs}}`; what is left out is
   * an instant link (the default). Resets the counts. */
  configure({ rttMs = 0, jitterMs = 0, bandwidthBytesPerSec = 0, seed = 1, spike } = {}) {
    for (const [name, value] of Object.entries({ rttMs, jitterMs, bandwidthBytesPerSec })) {
      if (typeof value !== "number" || !(value >= 0)) throw new Error(`linkModel: ${name} must be a number ≥ 0, not ${JSON.stringify(value)}`);
    }
    this.settings = { rttMs, jitterMs, bandwidthBytesPerSec };
    this.random = random(seed);
    this.spikeUntil = 0;
    this.spikeMs = 0;
    if (spike) this.spike(spike);
    this.stats = emptyStats();
    return this.describe();
  }

  /** Every round trip that starts in the next `forMs` takes `extraMs` more. */
  spike({ extraMs, forMs }) {
    this.spikeMs = extraMs;
    this.spikeUntil = Date.now() + forMs;
  }

  describe() {
    return { ...this.settings, spike: Date.now() < this.spikeUntil ? { extraMs: this.spikeMs, untilMs: this.spikeUntil } : null };
  }

  /** The counts since the last reset, and the round trips under way; `reset` starts the counts again. */
  read(reset = false) {
    const stats = { ...this.stats, inflight: this.inflight };
    if (reset) this.stats = emptyStats();
    return stats;
  }

  /** One half of a round trip carrying `bytes`. */
  half(bytes) {
    const { rttMs, jitterMs, bandwidthBytesPerSec } = this.settings;
    const spike = Date.now() < this.spikeUntil ? this.spikeMs : 0;
    const transfer = bandwidthBytesPerSec > 0 ? (bytes * 1000) / bandwidthBytesPerSec : 0;
    return rttMs / 2 + spike / 2 + this.random() * (jitterMs / 2) + transfer;
  }

  /** Run `work` as one round trip named `name` (about `subject`, a path say), sending `bytesUp`;
   * `bytesDown(result)` is what comes back. The failure of `work` travels back as its answer does. */
  async roundTrip(name, subject, bytesUp, work, bytesDown = () => 0) {
    // Counted where the call starts; what it adds goes to the counts in force when it is added.
    this.stats.roundTrips++;
    this.stats.byName[name] = (this.stats.byName[name] ?? 0) + 1;
    this.stats.bytesUp += bytesUp;
    if (this.stats.calls.length < NAMED_CALLS) this.stats.calls.push(`${name} ${subject}`);
    this.inflight++;
    this.stats.maxInflight = Math.max(this.stats.maxInflight, this.inflight);
    try {
      const there = this.half(bytesUp);
      this.stats.delayMs += there;
      await sleep(there);
      let result;
      let failure;
      try {
        result = await work();
      } catch (error) {
        failure = error;
      }
      const down = failure ? 0 : bytesDown(result);
      this.stats.bytesDown += down;
      const back = this.half(down);
      this.stats.delayMs += back;
      await sleep(back);
      if (failure) throw failure;
      return result;
    } finally {
      this.inflight--;
    }
  }
}

/** The size a value has on the wire, roughly (what VS Code's IPC would send). */
function wireBytes(value) {
  if (value === undefined) return 0;
  if (value instanceof Uint8Array) return value.byteLength;
  try {
    return Buffer.byteLength(JSON.stringify(value) ?? "");
  } catch {
    return 0;
  }
}

module.exports = { LinkModel, wireBytes };

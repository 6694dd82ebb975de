import { useEffect, useState } from 'react';

/** The current time (epoch ms), ticking every `everyMs` while `active` (a spinner and an elapsed time need it). */
export function useNow(active: boolean, everyMs = 100, clock: () => number = Date.now): number {
  const [now, setNow] = useState(clock);
  useEffect(() => {
    if (!active) return;
    setNow(clock());
    const timer = setInterval(() => setNow(clock()), everyMs);
    return () => clearInterval(timer);
  }, [active, everyMs]);
  return now;
}

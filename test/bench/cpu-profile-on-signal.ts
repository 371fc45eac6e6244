import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

/**
 * Loaded into a runtime to profile it (`NODE_OPTIONS=--import=dist/test/bench/cpu-profile-on-signal.js`;
 * Node refuses `--cpu-prof` in NODE_OPTIONS): the first SIGUSR2 starts V8's CPU profiler, the next
 * writes `runtime-<pid>.cpuprofile` into `BERTH_CPU_PROFILE_DIR` (default: the working directory)
 * and starts again, so a warm-up can be left out. Open the file in Chrome's DevTools, or sum its
 * samples by script.
 */
const session = new Session();
session.connect();
const directory = process.env['BERTH_CPU_PROFILE_DIR'] ?? process.cwd();
let profiling = false;

function start(): void {
  session.post('Profiler.enable', () => {
    session.post('Profiler.start', () => {
      profiling = true;
    });
  });
}

process.on('SIGUSR2', () => {
  if (!profiling) {
    start();
    return;
  }
  profiling = false;
  session.post('Profiler.stop', (error, result) => {
    if (!error) {
      const file = join(directory, `runtime-${process.pid}.cpuprofile`);
      writeFileSync(file, JSON.stringify(result.profile));
      process.stdout.write(`berth-cpu-profile ${file}\n`);
    }
    start();
  });
});

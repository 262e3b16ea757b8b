import { describe, expect, it } from 'vitest';
import { createProfile } from '../../../profile.js';
import { absoluteRulePath, toolRulesToCliPermissions } from './tool-rules-to-cli-permissions.js';

const profile = createProfile();
const base = {
  profile,
  disallowedTools: [],
  unconfinedShell: false,
  deniedDirs: ['/home/u/.local/share/assistant-proxy'],
  deniedFiles: ['/home/u/.claude/.credentials.json'],
  workDir: '/home/u/.local/share/assistant-proxy/cli-workdir',
};

describe('toolRulesToCliPermissions', () => {
  it('scopes a bare file tool to the working directory and keeps a rule the owner wrote with its own path', () => {
    const p = toolRulesToCliPermissions({ ...base, allowedTools: ['Read', 'Edit', 'Grep(src/**)', 'WebSearch'] });
    expect(p.tools).toEqual(['Read', 'Edit', 'Grep', 'WebSearch']);
    expect(p.settings.permissions.allow).toEqual(['Read(./**)', 'Edit(./**)', 'Grep(src/**)', 'WebSearch']);
    expect(p.settings.permissions.defaultMode).toBe('dontAsk');
  });

  it("denies every file tool the owner's secrets, start-up files and autostart folders, whatever is allowed", () => {
    const { deny } = toolRulesToCliPermissions({ ...base, allowedTools: ['Read'] }).settings.permissions;
    for (const p of [
      '~/.claude/**',
      '~/.claude.json',
      '~/.codex/**',
      '~/.ssh/**',
      '~/.bashrc',
      '~/.profile',
      '~/.zshrc',
      '~/.config/autostart/**',
      '~/.config/systemd/user/**',
      '~/Library/LaunchAgents/**',
    ]) {
      expect(deny).toContain(`Read(${p})`);
      expect(deny).toContain(`Edit(${p})`);
    }
    expect(deny).toContain('Read(//home/u/.claude/.credentials.json)');
    // The data directory holds the working directory: everything in it but that folder is denied.
    expect(deny).toContain('Read(//home/u/.local/share/assistant-proxy/*.*)');
    expect(deny).toContain('Edit(//home/u/.local/share/assistant-proxy/cli-prompts/**)');
    // The secrets and conversations beside it: MCP configs (their bearer secret), transcripts, the owner's key.
    for (const p of ['cli-mcp/**', 'cli-transcripts/**', 'owner-key'])
      expect(deny).toContain(`Read(//home/u/.local/share/assistant-proxy/${p})`);
    expect(deny).not.toContain('Read(//home/u/.local/share/assistant-proxy/**)');
  });

  it("denies a data directory whole when the working directory is elsewhere, and keeps the owner's own deny rules", () => {
    const { deny } = toolRulesToCliPermissions({
      ...base,
      workDir: '/srv/work',
      allowedTools: ['Read'],
      disallowedTools: ['WebFetch'],
    }).settings.permissions;
    expect(deny).toContain('Read(//home/u/.local/share/assistant-proxy/**)');
    expect(deny).toContain('WebFetch');
  });

  it('leaves out the tools that run commands unless CLI_UNCONFINED_SHELL accepts the risk', () => {
    const off = toolRulesToCliPermissions({ ...base, allowedTools: ['Read', 'Bash(git log:*)'] });
    expect(off.tools).toEqual(['Read']);
    expect(off.refused).toEqual(['Bash(git log:*)']);
    expect(off.settings.permissions.deny).toContain('Bash');
    const on = toolRulesToCliPermissions({ ...base, unconfinedShell: true, allowedTools: ['Read', 'Bash(git log:*)'] });
    expect(on.tools).toEqual(['Read', 'Bash']);
    expect(on.settings.permissions.allow).toEqual(['Read(./**)', 'Bash(git log:*)']);
    expect(on.settings.permissions.deny).not.toContain('Bash');
  });

  it('writes absolute paths the way the CLI reads them (// is the root)', () => {
    expect(absoluteRulePath('/etc/x')).toBe('//etc/x');
    expect(absoluteRulePath('C:\\Users\\u\\x')).toBe('//C:/Users/u/x');
  });
});
